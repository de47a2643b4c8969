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

/// The most backends `--devices` makes (a list may repeat a device).
pub const MAX_DEVICES: usize = 64;

/// Which devices prove (`--devices`): with more than one backend, the segments of a run are
/// committed and proven on all of them at once ([`crate::segmented`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Devices {
    /// One backend: device 0 (CUDA), or the CPU; on CUDA, two sharing device 0 for a run
    /// it segments when half the budget holds the same segments
    /// ([`crate::api::shares_one_device`]).
    #[default]
    Default,
    /// Every device the driver lists, one backend each.
    All,
    /// One backend per listed device ordinal; an ordinal may repeat (several backends
    /// sharing one device, each with its share of the device's memory).
    List(Vec<usize>),
}

impl Devices {
    /// Checks a list: not empty, at most [`MAX_DEVICES`] entries.
    ///
    /// # Errors
    /// A message saying what is wrong.
    pub fn check(&self) -> Result<(), String> {
        match self {
            Devices::List(l) if l.is_empty() => Err("the device list is empty".into()),
            Devices::List(l) if l.len() > MAX_DEVICES => {
                Err(format!("{} devices listed, at most {MAX_DEVICES}", l.len()))
            }
            _ => Ok(()),
        }
    }
}

/// Parses `--devices`: `all`, or device ordinals separated by commas (`0,1`, `0,0`).
///
/// # Errors
/// A message for anything else.
pub fn parse_devices(s: &str) -> Result<Devices, String> {
    if s.trim().eq_ignore_ascii_case("all") {
        return Ok(Devices::All);
    }
    let list = s
        .split(',')
        .map(|d| d.trim().parse::<usize>())
        .collect::<Result<Vec<_>, _>>()
        .map_err(|_| format!("{s:?}: expected all or device numbers such as 0,1"))?;
    let devices = Devices::List(list);
    devices.check().map_err(|e| format!("{s:?}: {e}"))?;
    Ok(devices)
}

/// The CUDA backends of `devices` ([`Devices::Default`]: device 0), in the order listed,
/// each with its own device-memory budget: `vram_budget` (else the device's free memory at
/// start) divided by the number of times its device is listed.
///
/// # Errors
/// A message when a device cannot be opened, or the driver lists none.
#[cfg(feature = "cuda")]
pub fn cuda_backends(
    devices: &Devices,
    vram_budget: Option<u64>,
) -> Result<Vec<CudaBackend>, String> {
    devices.check().map_err(|e| format!("--devices: {e}"))?;
    let ordinals: Vec<usize> = match devices {
        Devices::Default => vec![0],
        Devices::All => {
            let n = crate::cuda::device::CudaDevice::count()
                .map_err(|e| format!("--devices all: {e}"))?;
            if n == 0 {
                return Err("--devices all: no CUDA device present".into());
            }
            (0..n).collect()
        }
        Devices::List(l) => l.clone(),
    };
    let backends = ordinals
        .iter()
        .map(|&o| CudaBackend::on_device(o).map_err(|e| format!("--devices: device {o}: {e}")))
        .collect::<Result<Vec<_>, _>>()?;
    for (i, b) in backends.iter().enumerate() {
        let o = ordinals[i];
        let shares = ordinals.iter().filter(|&&x| x == o).count().max(1) as u64;
        // The device's free memory as its first backend found it (a later one on the same
        // device finds the earlier one's kernels loaded).
        let first = ordinals.iter().position(|&x| x == o).unwrap_or(i);
        let whole = vram_budget.unwrap_or_else(|| backends[first].device().free_at_start());
        b.set_vram_budget(Some(whole / shares));
    }
    Ok(backends)
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
    use super::{parse_bytes, parse_devices, Devices};

    #[test]
    fn device_lists() {
        assert_eq!(parse_devices("all"), Ok(Devices::All));
        assert_eq!(parse_devices("0"), Ok(Devices::List(vec![0])));
        assert_eq!(parse_devices("0,1, 0"), Ok(Devices::List(vec![0, 1, 0])));
        for bad in ["", "0,", ",1", "a", "-1", "0;1", "1.5"] {
            assert!(parse_devices(bad).is_err(), "{bad:?}");
        }
        assert!(parse_devices(&vec!["0"; 65].join(",")).is_err());
    }

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
