//! Loading a static RV64 ELF executable.
//!
//! Accepted: ELF64, little-endian, `EM_RISCV`, `ET_EXEC`, at least one non-empty `PT_LOAD`
//! segment, no `PT_INTERP` (static only). Segments are mapped with their R/W/X flags, as whole
//! 8-byte words (rounded out, the added bytes zero: the proof's memory is made of words), must
//! lie in the range [`map`](super::map) allows, must not overlap or share a word, and must not
//! be both writable and executable (the proven program is fixed). Executable segments start at
//! a multiple of 4, so the executor and the program image decode the same aligned words. The
//! entry point must be 4-byte aligned inside an executable segment. Every field is checked before use; the loader never panics, whatever the
//! bytes.

use super::map::{self, MAX_IMAGE_BYTES, MIN_SEGMENT_ADDR, STACK_BOTTOM};
use thiserror::Error;

const EM_RISCV: u16 = 243;
const ET_EXEC: u16 = 2;
const PT_LOAD: u32 = 1;
const PT_INTERP: u32 = 3;
const PF_X: u32 = 1;
const PF_W: u32 = 2;
const PF_R: u32 = 4;
const EHDR_SIZE: usize = 64;
const PHDR_SIZE: usize = 56;
/// More program headers than this is refused (real executables have a handful).
const MAX_PHNUM: usize = 256;

/// Why an ELF file cannot be loaded.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum ElfError {
    /// The file is shorter than the structure being read.
    #[error("truncated ELF: {what} needs bytes {start}..{end} but the file has {len}")]
    Truncated {
        /// The structure being read.
        what: &'static str,
        /// First byte needed.
        start: u64,
        /// One past the last byte needed.
        end: u64,
        /// File length.
        len: usize,
    },
    /// Not an ELF file.
    #[error("not an ELF file (bad magic {got:02x?})")]
    BadMagic {
        /// The first four bytes.
        got: [u8; 4],
    },
    /// Not ELF64.
    #[error("unsupported ELF class {got} (expected 2, ELF64)")]
    WrongClass {
        /// EI_CLASS.
        got: u8,
    },
    /// Not little-endian.
    #[error("unsupported ELF data encoding {got} (expected 1, little-endian)")]
    WrongEndianness {
        /// EI_DATA.
        got: u8,
    },
    /// Not RISC-V.
    #[error("unsupported ELF machine {got} (expected {EM_RISCV}, RISC-V)")]
    WrongMachine {
        /// e_machine.
        got: u16,
    },
    /// Not an executable (e.g. a relocatable object or a shared object / PIE).
    #[error("unsupported ELF type {got} (expected {ET_EXEC}, ET_EXEC: a static executable)")]
    WrongType {
        /// e_type.
        got: u16,
    },
    /// Program header entries of an unexpected size.
    #[error("program header entry size {got} (expected {PHDR_SIZE})")]
    BadPhentsize {
        /// e_phentsize.
        got: u16,
    },
    /// Too many program headers.
    #[error("{got} program headers (at most {MAX_PHNUM})")]
    TooManySegments {
        /// e_phnum.
        got: usize,
    },
    /// A PT_INTERP header: dynamically linked executables are not supported.
    #[error("dynamically linked executable (PT_INTERP): only static executables are supported")]
    Dynamic,
    /// No loadable segment.
    #[error("no loadable (PT_LOAD) segment")]
    NoSegments,
    /// `p_filesz > p_memsz`.
    #[error("segment {index}: file size {filesz:#x} exceeds memory size {memsz:#x}")]
    FileszExceedsMemsz {
        /// Program header index.
        index: usize,
        /// p_filesz.
        filesz: u64,
        /// p_memsz.
        memsz: u64,
    },
    /// The segment's file bytes lie past the end of the file.
    #[error("segment {index}: file bytes {offset:#x}+{filesz:#x} past the end of the file ({len} bytes)")]
    SegmentPastFile {
        /// Program header index.
        index: usize,
        /// p_offset.
        offset: u64,
        /// p_filesz.
        filesz: u64,
        /// File length.
        len: usize,
    },
    /// The segment's addresses are outside the loadable range.
    #[error(
        "segment {index}: addresses {vaddr:#x}+{memsz:#x} outside the loadable range \
         {MIN_SEGMENT_ADDR:#x}..{STACK_BOTTOM:#x}"
    )]
    SegmentOutOfRange {
        /// Program header index.
        index: usize,
        /// p_vaddr.
        vaddr: u64,
        /// p_memsz.
        memsz: u64,
    },
    /// Writable and executable segment.
    #[error("segment {index} at {vaddr:#x} is both writable and executable (the proven program must be fixed)")]
    WritableAndExecutable {
        /// Program header index.
        index: usize,
        /// p_vaddr.
        vaddr: u64,
    },
    /// Two segments overlap.
    #[error("segments overlap: {a_start:#x}..{a_end:#x} and {b_start:#x}..{b_end:#x}")]
    Overlap {
        /// First segment start.
        a_start: u64,
        /// First segment end.
        a_end: u64,
        /// Second segment start.
        b_start: u64,
        /// Second segment end.
        b_end: u64,
    },
    /// The segments' total size is absurd.
    #[error("segments map {total:#x} bytes in total (at most {MAX_IMAGE_BYTES:#x})")]
    TooLarge {
        /// Sum of p_memsz (saturating).
        total: u64,
    },
    /// An executable segment that does not start at a multiple of 4 (its instruction words
    /// would not be the aligned words the program is fetched as).
    #[error("segment {index}: executable segment at {vaddr:#x} does not start at a multiple of 4")]
    MisalignedCode {
        /// Program header index.
        index: usize,
        /// p_vaddr.
        vaddr: u64,
    },
    /// Two segments share an 8-byte word (segments are mapped as whole words).
    #[error(
        "segments {a_start:#x}..{a_end:#x} and {b_start:#x}..{b_end:#x} share an 8-byte word \
         (segments are mapped as whole words)"
    )]
    SharedWord {
        /// First segment start.
        a_start: u64,
        /// First segment end.
        a_end: u64,
        /// Second segment start.
        b_start: u64,
        /// Second segment end.
        b_end: u64,
    },
    /// e_entry is 0.
    #[error("no entry point (e_entry is 0)")]
    NoEntry,
    /// The entry point is misaligned or not in an executable segment.
    #[error("entry point {entry:#x} is not a 4-byte aligned address in an executable segment")]
    BadEntry {
        /// e_entry.
        entry: u64,
    },
}

/// Access permissions of a mapped range.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Perm {
    /// Readable.
    pub read: bool,
    /// Writable.
    pub write: bool,
    /// Executable.
    pub exec: bool,
}

/// One loaded segment, mapped as whole 8-byte words: `vaddr` is the ELF's `p_vaddr`
/// rounded down to a multiple of 8, `size` its memory size rounded out to whole words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    /// First address (a multiple of 8).
    pub vaddr: u64,
    /// The file-backed words: zeros up to `p_vaddr`, the file bytes, zeros to the end of
    /// their last word. The rest of the segment, up to `size`, is zero (bss), and is not
    /// held here: it costs nothing until the executor touches it.
    pub data: Vec<u8>,
    /// Mapped bytes (a multiple of 8, at least `data.len()`).
    pub size: u64,
    /// Permissions.
    pub perm: Perm,
}

impl Segment {
    /// One past the last address.
    pub fn end(&self) -> u64 {
        self.vaddr + self.size
    }
}

/// A loaded program: segments sorted by address, and the entry point.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    /// Initial pc.
    pub entry: u64,
    /// Non-empty segments, sorted by address, non-overlapping.
    pub segments: Vec<Segment>,
}

fn bytes<'a>(
    file: &'a [u8],
    start: u64,
    len: u64,
    what: &'static str,
) -> Result<&'a [u8], ElfError> {
    let end = start.saturating_add(len);
    let trunc = || ElfError::Truncated {
        what,
        start,
        end,
        len: file.len(),
    };
    let s = usize::try_from(start).map_err(|_| trunc())?;
    let e = usize::try_from(end).map_err(|_| trunc())?;
    file.get(s..e).ok_or_else(trunc)
}

fn u16_at(b: &[u8], off: usize) -> u16 {
    let mut a = [0u8; 2];
    if let Some(s) = b.get(off..off + 2) {
        a.copy_from_slice(s);
    }
    u16::from_le_bytes(a)
}
fn u32_at(b: &[u8], off: usize) -> u32 {
    let mut a = [0u8; 4];
    if let Some(s) = b.get(off..off + 4) {
        a.copy_from_slice(s);
    }
    u32::from_le_bytes(a)
}
fn u64_at(b: &[u8], off: usize) -> u64 {
    let mut a = [0u8; 8];
    if let Some(s) = b.get(off..off + 8) {
        a.copy_from_slice(s);
    }
    u64::from_le_bytes(a)
}

struct Phdr {
    index: usize,
    flags: u32,
    offset: u64,
    vaddr: u64,
    filesz: u64,
    memsz: u64,
}

impl Program {
    /// Parses and loads an ELF executable.
    ///
    /// # Errors
    /// An [`ElfError`] naming the first problem found.
    pub fn from_elf(file: &[u8]) -> Result<Program, ElfError> {
        let eh = bytes(file, 0, EHDR_SIZE as u64, "ELF header")?;
        let magic = [eh[0], eh[1], eh[2], eh[3]];
        if magic != *b"\x7fELF" {
            return Err(ElfError::BadMagic { got: magic });
        }
        if eh[4] != 2 {
            return Err(ElfError::WrongClass { got: eh[4] });
        }
        if eh[5] != 1 {
            return Err(ElfError::WrongEndianness { got: eh[5] });
        }
        let e_type = u16_at(eh, 16);
        let e_machine = u16_at(eh, 18);
        if e_machine != EM_RISCV {
            return Err(ElfError::WrongMachine { got: e_machine });
        }
        if e_type != ET_EXEC {
            return Err(ElfError::WrongType { got: e_type });
        }
        let entry = u64_at(eh, 24);
        let phoff = u64_at(eh, 32);
        let phentsize = u16_at(eh, 54);
        let phnum = usize::from(u16_at(eh, 56));
        if phnum > 0 && usize::from(phentsize) != PHDR_SIZE {
            return Err(ElfError::BadPhentsize { got: phentsize });
        }
        if phnum > MAX_PHNUM {
            return Err(ElfError::TooManySegments { got: phnum });
        }
        let table = bytes(file, phoff, (phnum * PHDR_SIZE) as u64, "program headers")?;

        let mut loads = Vec::new();
        for (index, ph) in table.chunks_exact(PHDR_SIZE).enumerate() {
            match u32_at(ph, 0) {
                PT_INTERP => return Err(ElfError::Dynamic),
                PT_LOAD => loads.push(Phdr {
                    index,
                    flags: u32_at(ph, 4),
                    offset: u64_at(ph, 8),
                    vaddr: u64_at(ph, 16),
                    filesz: u64_at(ph, 32),
                    memsz: u64_at(ph, 40),
                }),
                _ => {}
            }
        }
        let segments = Self::map_segments(file, &loads)?;
        if entry == 0 {
            return Err(ElfError::NoEntry);
        }
        let in_exec = segments
            .iter()
            .any(|s| s.perm.exec && entry >= s.vaddr && entry < s.end());
        if !in_exec || entry & 3 != 0 {
            return Err(ElfError::BadEntry { entry });
        }
        Ok(Program { entry, segments })
    }

    fn map_segments(file: &[u8], loads: &[Phdr]) -> Result<Vec<Segment>, ElfError> {
        // Check every header before allocating anything.
        let mut total: u64 = 0;
        for p in loads {
            let index = p.index;
            if p.filesz > p.memsz {
                return Err(ElfError::FileszExceedsMemsz {
                    index,
                    filesz: p.filesz,
                    memsz: p.memsz,
                });
            }
            if p.offset
                .checked_add(p.filesz)
                .is_none_or(|e| e > file.len() as u64)
            {
                return Err(ElfError::SegmentPastFile {
                    index,
                    offset: p.offset,
                    filesz: p.filesz,
                    len: file.len(),
                });
            }
            let in_range = p.vaddr >= MIN_SEGMENT_ADDR
                && p.vaddr
                    .checked_add(p.memsz)
                    .is_some_and(|e| e <= STACK_BOTTOM);
            if p.memsz > 0 && !in_range {
                return Err(ElfError::SegmentOutOfRange {
                    index,
                    vaddr: p.vaddr,
                    memsz: p.memsz,
                });
            }
            if p.flags & PF_W != 0 && p.flags & PF_X != 0 {
                return Err(ElfError::WritableAndExecutable {
                    index,
                    vaddr: p.vaddr,
                });
            }
            total = total.saturating_add(p.memsz);
        }
        if total > MAX_IMAGE_BYTES {
            return Err(ElfError::TooLarge { total });
        }
        let mut live: Vec<&Phdr> = loads.iter().filter(|p| p.memsz > 0).collect();
        if live.is_empty() {
            return Err(ElfError::NoSegments);
        }
        live.sort_by_key(|p| p.vaddr);
        for w in live.windows(2) {
            let (a, b) = (w[0], w[1]);
            // In range, so these sums do not overflow.
            let (a_end, b_end) = (a.vaddr + a.memsz, b.vaddr + b.memsz);
            if a_end > b.vaddr {
                return Err(ElfError::Overlap {
                    a_start: a.vaddr,
                    a_end,
                    b_start: b.vaddr,
                    b_end,
                });
            }
            if a_end.next_multiple_of(8) > b.vaddr & !7 {
                return Err(ElfError::SharedWord {
                    a_start: a.vaddr,
                    a_end,
                    b_start: b.vaddr,
                    b_end,
                });
            }
        }
        if let Some(p) = live
            .iter()
            .find(|p| p.flags & PF_X != 0 && p.vaddr & 3 != 0)
        {
            return Err(ElfError::MisalignedCode {
                index: p.index,
                vaddr: p.vaddr,
            });
        }
        let mut segments = Vec::with_capacity(live.len());
        for p in live {
            // Sizes are bounded by MAX_IMAGE_BYTES and the file length, checked above.
            let src = bytes(file, p.offset, p.filesz, "segment")?;
            let start = p.vaddr & !7;
            let pad = (p.vaddr - start) as usize;
            let end = (p.vaddr + p.memsz).next_multiple_of(8);
            let mut data = vec![0u8; (pad + src.len()).next_multiple_of(8)];
            data[pad..pad + src.len()].copy_from_slice(src);
            let perm = Perm {
                read: p.flags & PF_R != 0,
                write: p.flags & PF_W != 0,
                exec: p.flags & PF_X != 0,
            };
            segments.push(Segment {
                vaddr: start,
                data,
                size: end - start,
                perm,
            });
        }
        Ok(segments)
    }

    /// Where the heap starts: the end of the highest segment, rounded up to a page.
    pub fn heap_start(&self) -> u64 {
        map::page_align_up(
            self.segments
                .iter()
                .map(Segment::end)
                .max()
                .unwrap_or(MIN_SEGMENT_ADDR),
        )
    }
}
