//! Guest memory: a handful of regions (ELF segments, heap, stack), each one flat byte vector.
//!
//! The heap region is mapped in full, `heap_start .. heap_limit`, whatever the break: the
//! proof's memory map cannot follow the break cheaply, so the executor does not either (see
//! `core/src/rv/mod.rs`, "The executor and qemu"). Its bytes are allocated as accesses reach
//! them (in steps of [`HEAP_STEP`]), so an untouched heap costs nothing.
//!
//! Loads and stores first try the region the previous load (store) hit, then search the few
//! regions; accesses may be misaligned and may even straddle two adjacent regions.

use super::elf::{Perm, Program};
use super::map::{heap_limit, STACK_BOTTOM, STACK_SIZE};

/// The heap's bytes grow in steps of this many bytes.
pub const HEAP_STEP: u64 = 64 << 10;

/// One mapped range.
#[derive(Clone, Debug)]
pub struct Region {
    /// First address.
    pub base: u64,
    /// Contents; the length is the region's size.
    pub data: Vec<u8>,
    /// Permissions.
    pub perm: Perm,
}

impl Region {
    #[inline(always)]
    fn get<const N: usize>(&self, addr: u64) -> Option<[u8; N]> {
        let off = usize::try_from(addr.wrapping_sub(self.base)).ok()?;
        self.data.get(off..)?.first_chunk::<N>().copied()
    }

    #[inline(always)]
    fn get_mut<const N: usize>(&mut self, addr: u64) -> Option<&mut [u8; N]> {
        let off = usize::try_from(addr.wrapping_sub(self.base)).ok()?;
        self.data.get_mut(off..)?.first_chunk_mut::<N>()
    }

    fn contains(&self, addr: u64) -> bool {
        addr.wrapping_sub(self.base) < self.data.len() as u64
    }
}

/// The guest's memory.
#[derive(Clone, Debug)]
pub struct Memory {
    regions: Vec<Region>,
    brk: u64,
    heap: usize,
    heap_start: u64,
    heap_limit: u64,
    last_read: usize,
    last_write: usize,
}

impl Memory {
    /// Maps the program's segments, an empty heap at [`Program::heap_start`] and the stack.
    pub fn new(program: &Program) -> Memory {
        let mut regions: Vec<Region> = program
            .segments
            .iter()
            .map(|s| {
                // Zeroed pages from the allocator (bss costs nothing until touched), then
                // the file bytes.
                let mut data = vec![0u8; s.size as usize];
                data[..s.data.len()].copy_from_slice(&s.data);
                Region {
                    base: s.vaddr,
                    data,
                    perm: s.perm,
                }
            })
            .collect();
        let heap_start = program.heap_start();
        let heap_limit = heap_limit(heap_start);
        let rw = Perm {
            read: true,
            write: true,
            exec: false,
        };
        let heap = regions.len();
        regions.push(Region {
            base: heap_start,
            data: Vec::new(),
            perm: rw,
        });
        let stack = regions.len();
        regions.push(Region {
            base: STACK_BOTTOM,
            data: vec![0; STACK_SIZE as usize],
            perm: rw,
        });
        Memory {
            regions,
            brk: heap_start,
            heap,
            heap_start,
            heap_limit,
            last_read: stack,
            last_write: stack,
        }
    }

    /// All regions (segments in address order, then heap, then stack).
    pub fn regions(&self) -> &[Region] {
        &self.regions
    }

    /// The current program break.
    pub fn brk(&self) -> u64 {
        self.brk
    }

    /// The initial program break (start of the heap).
    pub fn heap_start(&self) -> u64 {
        self.heap_start
    }

    /// Linux `brk`: moves the break to `addr` if `heap_start <= addr <= heap limit`, and
    /// returns the break in force afterwards. Lowering the break zeroes the bytes it
    /// releases, so that they read as zero when it rises again (as under Linux); the heap
    /// stays mapped up to its limit either way.
    pub fn set_brk(&mut self, addr: u64) -> u64 {
        if addr >= self.heap_start && addr <= self.heap_limit {
            if addr < self.brk {
                let data = &mut self.regions[self.heap].data;
                let lo = ((addr - self.heap_start) as usize).min(data.len());
                let hi = ((self.brk - self.heap_start) as usize).min(data.len());
                data[lo..hi].fill(0);
            }
            self.brk = addr;
        }
        self.brk
    }

    /// Allocates the heap's bytes up to the end of `addr .. addr + len` where that range
    /// reaches into the heap beyond what is allocated (zeros, as the heap starts).
    fn reach_heap(&mut self, addr: u64, len: u64) {
        let end = addr.saturating_add(len).min(self.heap_limit);
        let heap = &mut self.regions[self.heap];
        let have = heap.base + heap.data.len() as u64;
        if addr < self.heap_limit && end > have {
            let want = (end - heap.base)
                .next_multiple_of(HEAP_STEP)
                .min(self.heap_limit - heap.base);
            heap.data.resize(want as usize, 0);
        }
    }

    /// Reads `N` bytes at `addr` (little-endian order as stored); `None` if any byte is unmapped
    /// or unreadable.
    #[inline(always)]
    pub fn load<const N: usize>(&mut self, addr: u64) -> Option<[u8; N]> {
        if let Some(r) = self.regions.get(self.last_read) {
            if let Some(v) = r.get::<N>(addr) {
                return Some(v);
            }
        }
        self.load_slow(addr)
    }

    /// Writes `N` bytes at `addr` and returns the bytes they replaced; `None` (and nothing
    /// written) if any byte is unmapped or not writable.
    #[inline(always)]
    pub fn store<const N: usize>(&mut self, addr: u64, val: [u8; N]) -> Option<[u8; N]> {
        if let Some(r) = self.regions.get_mut(self.last_write) {
            if let Some(slot) = r.get_mut::<N>(addr) {
                return Some(core::mem::replace(slot, val));
            }
        }
        self.store_slow(addr, val)
    }

    fn find(&self, addr: u64, write: bool) -> Option<usize> {
        self.regions
            .iter()
            .position(|r| r.contains(addr) && if write { r.perm.write } else { r.perm.read })
    }

    #[inline(never)]
    fn load_slow<const N: usize>(&mut self, addr: u64) -> Option<[u8; N]> {
        self.reach_heap(addr, N as u64);
        let i = self.find(addr, false)?;
        self.last_read = i;
        if let Some(v) = self.regions[i].get::<N>(addr) {
            return Some(v);
        }
        // Straddles two regions: byte by byte.
        let mut out = [0u8; N];
        for (k, b) in out.iter_mut().enumerate() {
            *b = self.load_byte(addr.checked_add(k as u64)?)?;
        }
        Some(out)
    }

    #[inline(never)]
    fn store_slow<const N: usize>(&mut self, addr: u64, val: [u8; N]) -> Option<[u8; N]> {
        self.reach_heap(addr, N as u64);
        let i = self.find(addr, true)?;
        self.last_write = i;
        if let Some(slot) = self.regions[i].get_mut::<N>(addr) {
            return Some(core::mem::replace(slot, val));
        }
        // Straddles two regions: check every byte first so a fault writes nothing.
        let mut places = [(0usize, 0usize); N];
        for (k, p) in places.iter_mut().enumerate() {
            let a = addr.checked_add(k as u64)?;
            let j = self.find(a, true)?;
            *p = (j, (a - self.regions[j].base) as usize);
        }
        let mut old = [0u8; N];
        for (k, &(j, off)) in places.iter().enumerate() {
            old[k] = core::mem::replace(&mut self.regions[j].data[off], val[k]);
        }
        Some(old)
    }

    fn load_byte(&self, addr: u64) -> Option<u8> {
        let j = self.find(addr, false)?;
        let r = &self.regions[j];
        r.data.get(usize::try_from(addr - r.base).ok()?).copied()
    }

    /// Copies `len` guest bytes starting at `addr` (for `write`); `None` if any is unreadable.
    pub fn read_bytes(&mut self, addr: u64, len: u64) -> Option<Vec<u8>> {
        self.reach_heap(addr, len);
        let mut out = Vec::new();
        let end = addr.checked_add(len)?;
        let mut a = addr;
        while a < end {
            let j = self.find(a, false)?;
            let r = &self.regions[j];
            let off = usize::try_from(a - r.base).ok()?;
            let take = usize::try_from((end - a).min((r.data.len() - off) as u64)).ok()?;
            out.extend_from_slice(r.data.get(off..off + take)?);
            a += take as u64;
        }
        Some(out)
    }

    /// Whether every byte of `addr..addr+len` is writable.
    pub fn writable(&mut self, addr: u64, len: u64) -> bool {
        self.accessible(addr, len, true)
    }

    /// Whether every byte of `addr..addr+len` is readable.
    pub fn readable(&mut self, addr: u64, len: u64) -> bool {
        self.accessible(addr, len, false)
    }

    fn accessible(&mut self, addr: u64, len: u64, write: bool) -> bool {
        self.reach_heap(addr, len);
        let Some(end) = addr.checked_add(len) else {
            return false;
        };
        let mut a = addr;
        while a < end {
            let Some(j) = self.find(a, write) else {
                return false;
            };
            let r = &self.regions[j];
            a = r.base + r.data.len() as u64;
        }
        true
    }

    /// Writes guest bytes (for `read`); `false` (nothing written) if any byte is not writable.
    pub fn write_bytes(&mut self, addr: u64, bytes: &[u8]) -> bool {
        if !self.writable(addr, bytes.len() as u64) {
            return false;
        }
        let mut a = addr;
        let mut rest = bytes;
        while !rest.is_empty() {
            let Some(j) = self.find(a, true) else {
                return false;
            };
            let r = &mut self.regions[j];
            let off = (a - r.base) as usize;
            let take = rest.len().min(r.data.len() - off);
            r.data[off..off + take].copy_from_slice(&rest[..take]);
            rest = &rest[take..];
            a += take as u64;
        }
        true
    }
}
