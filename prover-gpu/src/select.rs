//! `--backend auto|cpu|cuda`: which backend proves. `cuda` means the GPU or a clear error;
//! `auto` takes the GPU when this binary was built with CUDA and a device answers, else the
//! CPU, and says which. Nothing falls back silently.

use crate::cpu::CpuBackend;
#[cfg(feature = "cuda")]
use crate::cuda::CudaBackend;

/// Which backend proves (the `--backend` flag).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum BackendChoice {
    /// CUDA when built with it and a device is present, else CPU.
    #[default]
    Auto,
    /// The CPU reference backend.
    Cpu,
    /// The CUDA backend, or an error.
    Cuda,
}

/// The backend chosen.
pub enum Selected {
    Cpu(CpuBackend),
    #[cfg(feature = "cuda")]
    Cuda(Box<CudaBackend>),
}

impl Selected {
    pub fn name(&self) -> &'static str {
        match self {
            Selected::Cpu(_) => "cpu",
            #[cfg(feature = "cuda")]
            Selected::Cuda(_) => "cuda",
        }
    }
}

/// Parses a byte count: digits with an optional `K`, `M`, `G` or `T` suffix (powers of
/// 1024; `B`, `iB` and lower case accepted), e.g. `24G`, `512MiB`, `1048576`.
///
/// # Errors
/// A message for anything else, or a size past `u64`.
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, unit) = t.split_at(digits);
    let shift = match unit.to_ascii_uppercase().as_str() {
        "" | "B" => 0,
        "K" | "KB" | "KIB" => 10,
        "M" | "MB" | "MIB" => 20,
        "G" | "GB" | "GIB" => 30,
        "T" | "TB" | "TIB" => 40,
        _ => {
            return Err(format!(
                "{s:?}: expected bytes such as 24G, 512M or 1048576"
            ))
        }
    };
    let n: u64 = num
        .parse()
        .map_err(|_| format!("{s:?}: expected bytes such as 24G, 512M or 1048576"))?;
    n.checked_mul(1 << shift)
        .ok_or_else(|| format!("{s:?}: too large"))
}

/// Resolves the flag.
///
/// # Errors
/// A message when `cuda` was asked for and this binary has no CUDA support or no device
/// answers.
pub fn select(choice: BackendChoice) -> Result<Selected, String> {
    match choice {
        BackendChoice::Cpu => Ok(Selected::Cpu(CpuBackend)),
        #[cfg(feature = "cuda")]
        BackendChoice::Cuda => CudaBackend::new()
            .map(|b| Selected::Cuda(Box::new(b)))
            .map_err(|e| format!("--backend cuda: {e}")),
        #[cfg(not(feature = "cuda"))]
        BackendChoice::Cuda => {
            Err("--backend cuda: this binary was built without CUDA support (cargo build --features cuda)".into())
        }
        #[cfg(feature = "cuda")]
        BackendChoice::Auto => Ok(match CudaBackend::new() {
            Ok(b) => Selected::Cuda(Box::new(b)),
            Err(_) => Selected::Cpu(CpuBackend),
        }),
        #[cfg(not(feature = "cuda"))]
        BackendChoice::Auto => Ok(Selected::Cpu(CpuBackend)),
    }
}

/// Runs `$body` with `$b` bound to the selected backend (a `&impl Backend`).
#[macro_export]
macro_rules! with_backend {
    ($sel:expr, $b:ident => $body:expr) => {
        match $sel {
            $crate::select::Selected::Cpu(ref $b) => $body,
            #[cfg(feature = "cuda")]
            $crate::select::Selected::Cuda(ref boxed) => {
                let $b: &$crate::cuda::CudaBackend = boxed;
                $body
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::parse_bytes;

    #[test]
    fn byte_sizes() {
        assert_eq!(parse_bytes("1048576"), Ok(1 << 20));
        assert_eq!(parse_bytes("24G"), Ok(24 << 30));
        assert_eq!(parse_bytes("512MiB"), Ok(512 << 20));
        assert_eq!(parse_bytes("3k"), Ok(3 << 10));
        assert_eq!(parse_bytes("2TB"), Ok(2 << 40));
        for bad in [
            "",
            "G",
            "1.5G",
            "-1",
            "12Q",
            "99999999999999999999",
            "16777216T",
        ] {
            assert!(parse_bytes(bad).is_err(), "{bad:?}");
        }
    }
}
