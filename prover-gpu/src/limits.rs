//! What the command line accepts, checked before any work: file-size caps (checked against
//! the file's metadata where it is a regular file, and enforced while reading through
//! [`Read::take`] so pipes and character devices such as `/dev/zero` are bounded too), the
//! provable cycle count, and output files opened before the work whose result they receive.
//!
//! | what | cap | why |
//! | --- | --- | --- |
//! | ELF file | [`MAX_ELF_FILE`] = 1 GiB + 64 MiB | the loaded image is at most [`MAX_IMAGE_BYTES`] (1 GiB); 64 MiB more for headers, symbols and debug info |
//! | private input | [`MAX_INPUT`] = 16 MiB | see its doc |
//! | proof file | [`MAX_PROOF_FILE`] = 2 GiB | see its doc |
//! | verifying key | exactly [`VK_BYTES`] = 32 bytes | |
//! | cycles proven | [`MAX_PROVABLE_CYCLES`] = 2^36 | the verifier's bound on a segmented run (timestamps below 2^39) |
//! | cycles in one proof | [`MAX_SEGMENT_CYCLES`] = 2^24 | the packing pass refuses longer segments |

use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use crate::vm::map::MAX_IMAGE_BYTES;

/// Largest ELF file read: the largest loadable image ([`MAX_IMAGE_BYTES`]) plus 64 MiB of
/// headers, symbols and debug information (strip larger ELFs).
pub const MAX_ELF_FILE: u64 = MAX_IMAGE_BYTES + (64 << 20);

/// Largest private input (fd 0), for `run` and `prove`: 16 MiB.
///
/// Every input byte a guest reads becomes part of one IO row per 8-byte word (42 columns) and
/// one memory-argument access (MEMW_A), so 16 MiB read are 2^21 IO rows — as tall as the CPU
/// table of a 2^21-cycle run, about 0.7 GB of IO trace before the LDE. (The protocol's
/// largest table, 2^26 rows, would allow 512 MiB, at about 23 GB of IO trace alone.)
pub const MAX_INPUT: u64 = 16 << 20;

/// Largest proof file `verify` reads: 2 GiB. A proof of one segment is a few MiB (1.6 MB
/// for 2^22 cycles at blowup 4, BENCHMARKS.md) and holds, per query (at most 512 in any
/// parameter set the verifier accepts), each table's opened rows with Merkle paths of at
/// most 31 digests, and the FRI layers' pairs with their paths; a segmented run's proof is
/// one such part per segment (about 0.5 GB for 2^28 cycles in segments of 2^21). `verify`
/// reads the file into memory; the verifier itself streams it (its heap does not grow with
/// the number of segments).
pub const MAX_PROOF_FILE: u64 = 2 << 30;

/// Size of a verifying key file.
pub const VK_BYTES: u64 = 32;

/// Most cycles `prove` can prove: 2^36, the longest segmented run the verifier accepts
/// (`kestrel_verifier::MAX_RUN_LOG_CYCLES`).
pub const MAX_PROVABLE_CYCLES: u64 = 1 << kestrel_verifier::MAX_RUN_LOG_CYCLES;

/// `prove`'s default `--max-cycles`: 2^26 (a guest that loops forever stops in a second or
/// so; longer runs name a larger limit).
pub const DEFAULT_PROVE_CYCLES: u64 = 1 << 26;

/// Most cycles one proof (one segment) holds: 2^24, so that its largest table (MEMW_R, up
/// to four rows per cycle) stays within the protocol's `MAX_LOG_HEIGHT` = 26, up to which
/// the presets reach the security floor; longer runs are segmented. The CPU table has one
/// row per cycle.
pub const MAX_SEGMENT_CYCLES: u64 = 1 << 24;

/// Fewest cycles a segment may have (`--segment-cycles`).
pub const MIN_SEGMENT_CYCLES: u64 = 1 << 8;

/// `n` in MiB or KiB where it is a whole number of them, else in bytes, for messages.
pub fn bytes_human(n: u64) -> String {
    if n >= 1 << 20 && n.is_multiple_of(1 << 20) {
        format!("{} MiB", n >> 20)
    } else if n >= 1 << 10 && n.is_multiple_of(1 << 10) {
        format!("{} KiB", n >> 10)
    } else {
        format!("{n} bytes")
    }
}

/// Why a file was not read.
#[derive(Debug)]
pub enum ReadError {
    /// The operating system's error.
    Io(std::io::Error),
    /// Longer than the cap (`size`: the length, where the metadata said it; `limit`: the
    /// cap's name).
    TooLarge {
        size: Option<u64>,
        cap: u64,
        limit: &'static str,
    },
    /// The first bytes are not what such a file starts with.
    BadStart(&'static str),
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::Io(e) => write!(f, "{e}"),
            ReadError::TooLarge {
                size: Some(size),
                cap,
                limit,
            } => write!(
                f,
                "{size} bytes, more than the {limit} limit of {} ({cap} bytes)",
                bytes_human(*cap)
            ),
            ReadError::TooLarge {
                size: None,
                cap,
                limit,
            } => write!(
                f,
                "more than the {limit} limit of {} ({cap} bytes)",
                bytes_human(*cap)
            ),
            ReadError::BadStart(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for ReadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ReadError::Io(e) => Some(e),
            _ => None,
        }
    }
}

/// An ELF file's bytes: at most [`MAX_ELF_FILE`], starting with the ELF magic.
///
/// # Errors
/// As [`read_capped`]: [`ReadError::Io`] if it cannot be read, another kind if it is too
/// large or not an ELF file.
pub fn read_elf(path: &Path) -> Result<Vec<u8>, ReadError> {
    read_capped(
        path,
        (MAX_ELF_FILE, "ELF file"),
        Some((b"\x7fELF", "not an ELF file (bad magic)")),
    )
}

/// Reads at most `cap` bytes of `path` (`limit` names the cap in messages); a longer file is [`ReadError::TooLarge`], found from
/// the metadata before reading where it is a regular file, else after `cap + 1` bytes. If
/// `start` is given, a file of at least its length must begin with it (checked after reading
/// that many bytes, so an endless stream of the wrong kind costs nothing): else
/// [`ReadError::BadStart`] with the message given.
///
/// # Errors
/// See above.
pub fn read_capped(
    path: &Path,
    (cap, limit): (u64, &'static str),
    start: Option<(&[u8], &'static str)>,
) -> Result<Vec<u8>, ReadError> {
    let file = File::open(path).map_err(ReadError::Io)?;
    let meta = file.metadata().map_err(ReadError::Io)?;
    if meta.is_dir() {
        return Err(ReadError::Io(std::io::Error::new(
            std::io::ErrorKind::IsADirectory,
            "is a directory",
        )));
    }
    let known = meta.is_file().then_some(meta.len());
    if let Some(size) = known.filter(|&s| s > cap) {
        return Err(ReadError::TooLarge {
            size: Some(size),
            cap,
            limit,
        });
    }
    let mut r = file.take(cap.saturating_add(1));
    let mut out = Vec::with_capacity(known.unwrap_or(0).min(cap) as usize);
    if let Some((magic, why)) = start {
        let mut head = Vec::with_capacity(magic.len());
        (&mut r)
            .take(magic.len() as u64)
            .read_to_end(&mut head)
            .map_err(ReadError::Io)?;
        // A shorter file is left to the parser (it says "truncated").
        if head.len() == magic.len() && head != magic {
            return Err(ReadError::BadStart(why));
        }
        out.extend_from_slice(&head);
    }
    r.read_to_end(&mut out).map_err(ReadError::Io)?;
    if out.len() as u64 > cap {
        return Err(ReadError::TooLarge {
            size: known,
            cap,
            limit,
        });
    }
    Ok(out)
}

/// An output file opened (or created) before the work whose result it receives, so an
/// unwritable path fails first. A regular file (or a new one) is written to a temporary
/// file beside it and renamed into place by [`OutFile::commit`], so a failure leaves
/// neither a partial file nor an empty one; the temporary file is removed if the result is
/// never committed (through a symbolic link, its target is replaced). Anything else that
/// exists (`/dev/null`, a pipe) is written in place.
#[derive(Debug)]
pub struct OutFile {
    path: PathBuf,
    file: Option<File>,
    /// The temporary file, where one is used.
    temp: Option<PathBuf>,
}

impl OutFile {
    /// Opens `path` for writing the result later.
    ///
    /// # Errors
    /// The operating system's error (a missing or unwritable directory, a directory as
    /// `path`, …).
    pub fn create(path: &Path) -> std::io::Result<OutFile> {
        // A symbolic link stays one: its target is replaced.
        let target = match std::fs::symlink_metadata(path) {
            Ok(m) if m.file_type().is_symlink() => {
                std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
            }
            _ => path.to_path_buf(),
        };
        let path = target.as_path();
        match std::fs::metadata(path) {
            Ok(m) if m.is_dir() => {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::IsADirectory,
                    "is a directory",
                ))
            }
            Ok(m) if !m.is_file() => {
                let file = std::fs::OpenOptions::new().write(true).open(path)?;
                return Ok(OutFile {
                    path: path.to_path_buf(),
                    file: Some(file),
                    temp: None,
                });
            }
            Ok(_) => {
                // An existing file must be writable, as a direct write would need.
                std::fs::OpenOptions::new().write(true).open(path)?;
            }
            Err(_) => {}
        }
        let name = path.file_name().ok_or_else(|| {
            std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a file name")
        })?;
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let mut k = 0u32;
        loop {
            let mut tmp_name = std::ffi::OsString::from(".");
            tmp_name.push(name);
            tmp_name.push(format!(".kestrel-tmp-{}-{k}", std::process::id()));
            let temp = dir.join(tmp_name);
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&temp)
            {
                Ok(file) => {
                    return Ok(OutFile {
                        path: path.to_path_buf(),
                        file: Some(file),
                        temp: Some(temp),
                    })
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && k < 100 => k += 1,
                Err(e) => return Err(e),
            }
        }
    }

    /// The path the result goes to.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes `data` and puts the file in place.
    ///
    /// # Errors
    /// The operating system's error; the temporary file is removed.
    pub fn commit(mut self, data: &[u8]) -> std::io::Result<()> {
        let Some(mut file) = self.file.take() else {
            return Err(std::io::Error::other("output file already written"));
        };
        file.write_all(data)?;
        file.flush()?;
        if let Some(temp) = self.temp.take() {
            drop(file);
            if let Err(e) = std::fs::rename(&temp, &self.path) {
                let _ = std::fs::remove_file(&temp);
                return Err(e);
            }
        }
        Ok(())
    }
}

impl Drop for OutFile {
    fn drop(&mut self) {
        self.file = None;
        if let Some(temp) = self.temp.take() {
            let _ = std::fs::remove_file(temp);
        }
    }
}
