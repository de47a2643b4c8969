//! A minimal static RV64 ELF executable: one read+execute segment holding the code (the
//! entry point is its first word) and one read+write segment holding data, each with its
//! own program header. Enough for the loader to accept and the executor to run.

/// Where the code segment is mapped.
pub const TEXT_ADDR: u64 = 0x1_0000;
/// Where the data segment is mapped.
pub const DATA_ADDR: u64 = 0x10_0000;

const EHDR: usize = 64;
const PHDR: usize = 56;

fn phdr(out: &mut Vec<u8>, flags: u32, offset: u64, vaddr: u64, filesz: u64, memsz: u64) {
    out.extend_from_slice(&1u32.to_le_bytes()); // PT_LOAD
    out.extend_from_slice(&flags.to_le_bytes());
    out.extend_from_slice(&offset.to_le_bytes());
    out.extend_from_slice(&vaddr.to_le_bytes()); // p_vaddr
    out.extend_from_slice(&vaddr.to_le_bytes()); // p_paddr
    out.extend_from_slice(&filesz.to_le_bytes());
    out.extend_from_slice(&memsz.to_le_bytes());
    out.extend_from_slice(&4096u64.to_le_bytes()); // p_align
}

/// The ELF bytes of a program whose code is `words` (at [`TEXT_ADDR`], entry there) and
/// whose data segment holds `data` followed by `bss` zero bytes (at [`DATA_ADDR`]). An
/// empty `words` still gets one word (zero, an illegal instruction) so the entry point
/// lies in the code segment.
pub fn build(words: &[u32], data: &[u8], bss: u64) -> Vec<u8> {
    let mut text: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    if text.is_empty() {
        text.extend_from_slice(&[0; 4]);
    }
    let text_off = (EHDR + 2 * PHDR) as u64;
    let data_off = text_off + text.len() as u64;
    let mut out = Vec::with_capacity(EHDR + 2 * PHDR + text.len() + data.len());
    out.extend_from_slice(b"\x7fELF");
    out.extend_from_slice(&[2, 1, 1, 0]); // ELF64, little-endian, version 1, SysV ABI
    out.extend_from_slice(&[0; 8]);
    out.extend_from_slice(&2u16.to_le_bytes()); // ET_EXEC
    out.extend_from_slice(&243u16.to_le_bytes()); // EM_RISCV
    out.extend_from_slice(&1u32.to_le_bytes()); // e_version
    out.extend_from_slice(&TEXT_ADDR.to_le_bytes()); // e_entry
    out.extend_from_slice(&(EHDR as u64).to_le_bytes()); // e_phoff
    out.extend_from_slice(&0u64.to_le_bytes()); // e_shoff
    out.extend_from_slice(&0u32.to_le_bytes()); // e_flags
    out.extend_from_slice(&(EHDR as u16).to_le_bytes());
    out.extend_from_slice(&(PHDR as u16).to_le_bytes());
    out.extend_from_slice(&2u16.to_le_bytes()); // e_phnum
    out.extend_from_slice(&64u16.to_le_bytes()); // e_shentsize
    out.extend_from_slice(&0u16.to_le_bytes()); // e_shnum
    out.extend_from_slice(&0u16.to_le_bytes()); // e_shstrndx
    let text_len = text.len() as u64;
    phdr(&mut out, 5, text_off, TEXT_ADDR, text_len, text_len); // R+X
    let data_len = data.len() as u64;
    phdr(
        &mut out,
        6,
        data_off,
        DATA_ADDR,
        data_len,
        data_len.saturating_add(bss).max(1),
    ); // R+W
    out.extend_from_slice(&text);
    out.extend_from_slice(data);
    out
}
