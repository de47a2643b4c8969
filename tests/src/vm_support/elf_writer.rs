//! Writes minimal static RV64 ELF executables: a read+execute code segment at [`CODE_BASE`]
//! and, if given, a read+write data segment at [`DATA_BASE`].

/// Address of the first instruction (the entry point).
pub const CODE_BASE: u64 = 0x10000;
/// Address of the data segment.
pub const DATA_BASE: u64 = 0x40000;

const PAGE: u64 = 0x1000;

/// A segment to emit.
pub struct Seg {
    /// Load address (multiple of 4 KiB).
    pub vaddr: u64,
    /// Contents written to the file.
    pub bytes: Vec<u8>,
    /// Memory size (>= bytes.len(); the rest is zero-filled).
    pub memsz: u64,
    /// p_flags (R = 4, W = 2, X = 1).
    pub flags: u32,
}

/// An ELF with the code at [`CODE_BASE`] (entry) and `data` at [`DATA_BASE`].
pub fn elf(code: &[u32], data: &[u8]) -> Vec<u8> {
    let code_bytes: Vec<u8> = code.iter().flat_map(|w| w.to_le_bytes()).collect();
    let mut segs = vec![Seg {
        vaddr: CODE_BASE,
        memsz: code_bytes.len() as u64,
        bytes: code_bytes,
        flags: 5,
    }];
    if !data.is_empty() {
        segs.push(Seg {
            vaddr: DATA_BASE,
            bytes: data.to_vec(),
            memsz: data.len() as u64,
            flags: 6,
        });
    }
    elf_segments(CODE_BASE, &segs)
}

/// An ELF with arbitrary segments (each placed at a page-aligned file offset).
pub fn elf_segments(entry: u64, segs: &[Seg]) -> Vec<u8> {
    let phnum = segs.len() as u64;
    let mut out = vec![0u8; 64 + 56 * segs.len()];
    out[0..4].copy_from_slice(b"\x7fELF");
    out[4] = 2; // ELFCLASS64
    out[5] = 1; // little-endian
    out[6] = 1; // EV_CURRENT
    out[16..18].copy_from_slice(&2u16.to_le_bytes()); // ET_EXEC
    out[18..20].copy_from_slice(&243u16.to_le_bytes()); // EM_RISCV
    out[20..24].copy_from_slice(&1u32.to_le_bytes());
    out[24..32].copy_from_slice(&entry.to_le_bytes());
    out[32..40].copy_from_slice(&64u64.to_le_bytes()); // e_phoff
    out[52..54].copy_from_slice(&64u16.to_le_bytes()); // e_ehsize
    out[54..56].copy_from_slice(&56u16.to_le_bytes()); // e_phentsize
    out[56..58].copy_from_slice(&(phnum as u16).to_le_bytes());
    let mut offset = PAGE;
    for (k, s) in segs.iter().enumerate() {
        let ph = 64 + 56 * k;
        out[ph..ph + 4].copy_from_slice(&1u32.to_le_bytes()); // PT_LOAD
        out[ph + 4..ph + 8].copy_from_slice(&s.flags.to_le_bytes());
        out[ph + 8..ph + 16].copy_from_slice(&(offset + s.vaddr % PAGE).to_le_bytes());
        out[ph + 16..ph + 24].copy_from_slice(&s.vaddr.to_le_bytes());
        out[ph + 24..ph + 32].copy_from_slice(&s.vaddr.to_le_bytes());
        out[ph + 32..ph + 40].copy_from_slice(&(s.bytes.len() as u64).to_le_bytes());
        out[ph + 40..ph + 48].copy_from_slice(&s.memsz.to_le_bytes());
        out[ph + 48..ph + 56].copy_from_slice(&PAGE.to_le_bytes());
        let start = (offset + s.vaddr % PAGE) as usize;
        out.resize(start, 0);
        out.extend_from_slice(&s.bytes);
        offset = (out.len() as u64).div_ceil(PAGE) * PAGE;
    }
    out
}
