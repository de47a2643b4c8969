//! The replay of a segment whose memory records a device's walk makes
//! ([`Lookups::Device`](super::Lookups::Device)), in parallel: with those records neither
//! kept nor made, what the replay must still find — the checks, each word as the segment
//! first finds it, the final memory, the register file at each chunk and at each system
//! call, the calls' records and transfers — depends on the steps before it only through the
//! register file (a few dozen values) and through each memory word on its own accesses. So:
//!
//! 1. **Scan** (chunks in parallel, in the pass that decodes them): each chunk's loads and
//!    stores, cut into the word parts they touch and handed to the word's owner
//!    (`w % OWNERS`), its record counts, the last access to each register (and last value
//!    written), and its system calls.
//! 2. **Registers and calls** (sequential, over chunks): the register file at each chunk's
//!    start from the chunk before's summary; a chunk with a system call is replayed step by
//!    step (registers only) to make each call's record, register accesses and transfer
//!    words (with their input and output positions), handed to the words' owners.
//! 3. **Memory** (owners in parallel): each owner replays its words' accesses in time
//!    order from the carried memory, checks each (the bytes the executor recorded, writes
//!    to read-only words), and notes each word as first found and as left.
//!
//! Anything the sequential replay would refuse makes this one give up with nothing
//! changed ([`Run::replay_parallel`] returns false): the caller then replays sequentially,
//! which fails with the earliest failing step's error as always. The result is the
//! sequential replay's, field for field (`rv_lookups.rs` checks every record and run table
//! against the host pass).

use alloc::vec;
use alloc::vec::Vec;

use super::{Found, Run, Words, RO_BIT};
use crate::par::ParMap;
use crate::rv::cpu::{self, CallMark, Step};
use crate::rv::decode::{class, CodeSlots, Decoded};
use crate::rv::ecall;
use crate::rv::io;
use crate::rv::load;
use crate::rv::machine::MemCounts;
use crate::rv::memw_r::{RegAccess, RegRow};
use crate::rv::{WordAccess, WordStart, IO_IN, IO_OUT, IO_ZERO, NUM_REGS};

/// Memory words are replayed by this many owners, word `w` by owner `w % OWNERS` (words,
/// not pages: a stack's accesses spread over every owner).
const OWNERS: usize = 64;

/// What a chunk's scan found ([`Scanner`]).
pub(super) struct Scan {
    /// The register file's changes between the chunk's system calls: per stretch of steps,
    /// the last access to each register it touches (a write if the stretch writes it, with
    /// the last value written).
    regs: Vec<RegAccess>,
    /// The chunk's system calls: each one's step (in the segment) and the end of `regs`
    /// before it (its own register accesses are not in `regs`).
    calls: Vec<(usize, usize)>,
    /// Per owner, the chunk's word parts of loads and stores, in order.
    parts: [Vec<Part>; OWNERS],
    counts: MemCounts,
    /// Whether the chunk holds nothing the sequential replay would refuse here.
    ok: bool,
}

/// The part of a load or store on one word, all an owner needs of it (so that it reads
/// no step: those are far apart in memory).
#[derive(Clone, Copy)]
struct Part {
    /// The step (in the segment) `<< 8`, then the first byte in the word (3 bits), the
    /// bytes less one (3 bits) and whether it is a store.
    tag: u32,
    w: u32,
    /// The covered bytes as the executor recorded them (at the part's bytes of the word).
    found: u64,
    /// A store's bytes (likewise).
    stored: u64,
}

impl Part {
    /// The part `half` (1: the second word of a split access) of step `k`'s access of
    /// `width_of(funct3)` bytes at `addr`, which found `found` (zero-extended) and stores
    /// `stored` (for a store).
    fn new(k: u32, funct3: u8, addr: u32, half: u32, found: u64, stored: Option<u64>) -> Self {
        let (lo, cnt, at) = part(funct3, addr, half);
        let shift = |v: u64| ((v >> (8 * at)) & byte_mask(cnt)) << (8 * lo);
        Part {
            tag: k << 8 | lo << 5 | (cnt - 1) << 2 | stored.is_some() as u32,
            w: addr / 8 + half,
            found: shift(found),
            stored: stored.map_or(0, shift),
        }
    }

    fn step(&self) -> usize {
        (self.tag >> 8) as usize
    }

    /// The part's bytes in its word.
    fn mask(&self) -> u64 {
        byte_mask((self.tag >> 2 & 7) + 1) << (8 * (self.tag >> 5 & 7))
    }

    fn is_store(&self) -> bool {
        self.tag & 1 != 0
    }
}

/// The last access to each register over a stretch of steps.
struct Stretch {
    last_ts: [u64; NUM_REGS],
    written: [Option<u64>; NUM_REGS],
}

impl Stretch {
    fn new() -> Self {
        Stretch {
            last_ts: [0; NUM_REGS],
            written: [None; NUM_REGS],
        }
    }

    fn access(&mut self, reg: u8, ts: u64, written: Option<u64>) {
        // As the register file takes it (a decoded register is below 32: no division).
        let r = match reg as usize {
            r if r < NUM_REGS => r,
            r => r % NUM_REGS,
        };
        self.last_ts[r] = ts;
        if written.is_some() {
            self.written[r] = written;
        }
    }

    /// Appends the stretch's last accesses to `out` and starts a new stretch.
    fn flush(&mut self, out: &mut Vec<RegAccess>) {
        for r in 0..NUM_REGS {
            if self.last_ts[r] != 0 {
                out.push(RegAccess {
                    reg: r as u8,
                    value: self.written[r].unwrap_or(0),
                    ts: self.last_ts[r],
                    is_write: self.written[r].is_some(),
                });
            }
        }
        *self = Stretch::new();
    }
}

/// One word of a system call's transfer, handed to the word's owner.
#[derive(Clone, Copy)]
struct Transfer {
    /// Order among the segment's transfer words (the sequential replay's).
    seq: usize,
    ts: u64,
    w: u32,
    kind: u32,
    lo: u8,
    cnt: u8,
    /// IO's transfer position.
    pos: u64,
    /// Where its input bytes start, or its output bytes go (in the run's output).
    at: usize,
}

/// What an owner's replay found.
struct Owned {
    /// Its words as left: by `w / OWNERS`, and the words it touched.
    words: Words,
    touched: Vec<u32>,
    starts: Vec<WordStart>,
    /// Its transfer words' accesses.
    transfers: Vec<(Transfer, WordAccess)>,
    /// Output bytes its transfers wrote: position, bytes (the first `cnt` of the word's).
    out: Vec<(usize, [u8; 8], u8)>,
    ok: bool,
}

/// The bytes `(lo, cnt, first)` that part `half` of an access of `width_of(funct3)` bytes
/// at `addr` covers: bytes `lo .. lo + cnt` of its word, which are bytes `first ..` of the
/// access.
fn part(funct3: u8, addr: u32, half: u32) -> (u32, u32, u32) {
    let (off, width) = (addr % 8, load::width_of(funct3));
    if half == 0 {
        (off, width.min(8 - off), 0)
    } else {
        (0, off + width - 8, 8 - off)
    }
}

/// The low `cnt` bytes (1 ..= 8) set.
fn byte_mask(cnt: u32) -> u64 {
    if cnt >= 8 {
        u64::MAX
    } else {
        (1 << (8 * cnt)) - 1
    }
}

/// A chunk's scan, a step at a time ([`Scanner::step`], in step order), as the chunk's
/// decode reaches each step (its step and fields still at hand).
pub(super) struct Scanner {
    out: Scan,
    stretch: Stretch,
    /// The segment's first clock.
    clk0: u64,
}

impl Scanner {
    /// The scan of a chunk of `len` steps of a segment starting at clock `clk0`.
    pub(super) fn new(clk0: u64, len: usize) -> Self {
        // Room for each owner's share of a quarter of the steps as loads and stores (most
        // programs' share, give or take; the decode has not counted them yet) and an eighth
        // more, so that the lists seldom grow.
        let per_owner = len / 4 / OWNERS * 9 / 8 + 8;
        Scanner {
            out: Scan {
                regs: Vec::new(),
                calls: Vec::new(),
                parts: core::array::from_fn(|_| Vec::with_capacity(per_owner)),
                counts: MemCounts::default(),
                ok: true,
            },
            stretch: Stretch::new(),
            clk0,
        }
    }

    /// Step `k` of the segment, `s`, with its decoded fields `d` and the value it writes to
    /// rd ([`cpu::written`]).
    #[inline]
    pub(super) fn step(&mut self, k: usize, s: &Step, d: &Decoded, written: u64) {
        let out = &mut self.out;
        if d.class[class::ECALL] {
            // The call's step is replayed whole, after the stretch before it.
            self.stretch.flush(&mut out.regs);
            out.calls.push((k, out.regs.len()));
            return;
        }
        let ts = 4 * (self.clk0 + k as u64);
        self.stretch.access(d.rs1, ts + 1, None);
        self.stretch.access(d.rs2, ts + 2, None);
        self.stretch.access(d.rd, ts + 3, Some(written));
        let is_load = d.class[class::LOAD];
        if !is_load && !d.class[class::STORE] {
            return;
        }
        let funct3 = load::funct3_of(d.alu_op, is_load);
        let width = load::width_of(funct3);
        let Ok(addr) = u32::try_from(s.mem_addr) else {
            out.ok = false;
            return;
        };
        let (w, split) = (addr / 8, load::is_split(funct3, addr));
        // The executor records the accessed bytes zero-extended.
        if (split && w + 1 >= 1 << 29) || (width < 8 && s.mem_val >> (8 * width) != 0) {
            out.ok = false;
            return;
        }
        // Steps are at most 2^24 (`MAX_LOG_HEIGHT`).
        let Some(step) = u32::try_from(k).ok().filter(|&k| k < 1 << 24) else {
            out.ok = false;
            return;
        };
        let stored = (!is_load).then_some(s.rs2_val);
        out.counts.loads += is_load as usize;
        out.counts.stores += !is_load as usize;
        out.parts[w as usize % OWNERS].push(Part::new(step, funct3, addr, 0, s.mem_val, stored));
        if split {
            out.counts.mem_s += 1;
            let p = Part::new(step, funct3, addr, 1, s.mem_val, stored);
            out.parts[(w as usize + 1) % OWNERS].push(p);
        } else {
            out.counts.mem_a += 1;
        }
    }

    /// The scan of the steps so far.
    pub(super) fn finish(mut self) -> Scan {
        self.stretch.flush(&mut self.out.regs);
        self.out
    }
}

/// An owner's words: the carried memory under the segment's accesses so far.
struct OwnerMem<'m> {
    carried: &'m super::MemReplay,
    words: Words,
    /// The words written, in the order first written.
    touched: Vec<u32>,
}

impl OwnerMem<'_> {
    fn read(&self, w: u32) -> Option<Found> {
        match self.words.get(w / OWNERS as u32) {
            Some((value, t)) => Some(Found {
                value,
                ts: t & !RO_BIT,
                ro: t & RO_BIT != 0,
            }),
            None => self.carried.read(0, w).ok(),
        }
    }

    fn write(&mut self, w: u32, old: &Found, new: u64, ts: u64) {
        let ro = if old.ro { RO_BIT } else { 0 };
        let local = w / OWNERS as u32;
        if self.words.get(local).is_none() {
            self.touched.push(w);
        }
        self.words.insert(local, (new, ts | ro));
    }
}

impl Run<'_, '_> {
    /// Replays the segment's `steps` (their DECODE rows `dec_row`, every step with one) from
    /// its first clock `clk0`, in parallel, without keeping the loads', stores' and word
    /// accesses' records (see the module's notes), from the [`Scan`]s of its chunks of
    /// `len` steps. False, with nothing replayed or changed, where the sequential replay
    /// would fail (the caller replays sequentially then).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn replay_parallel<S: Copy + Into<Step> + Sync>(
        &mut self,
        par: &impl ParMap,
        slots: &CodeSlots,
        steps: &[S],
        dec_row: &[u32],
        mut scans: Vec<Scan>,
        len: usize,
        clk0: u64,
    ) -> bool {
        debug_assert!(!self.keep && self.rec.file_at.is_empty());
        let n = steps.len();
        if dec_row.len() != n || len == 0 || scans.len() != n.div_ceil(len) {
            return false;
        }
        if scans.iter().any(|s| !s.ok) {
            return false;
        }
        par.stage_done("replay: scan");
        // 2. Registers and calls.
        let st = &*self.st;
        let mut file = st.file.clone();
        let (mut input_pos, mut outpos, mut out_len) = (st.input_pos, st.outpos, st.output.len());
        let mut exit_code = st.exit_code;
        let mut file_at = Vec::with_capacity(scans.len());
        let (mut extra, mut extra_of, mut ecalls, mut calls) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let mut transfers: Vec<Vec<Transfer>> = vec![Vec::new(); OWNERS];
        let mut seq = 0;
        for scan in &scans {
            file_at.push(file.clone());
            let mut done = 0;
            for (k, end) in scan
                .calls
                .iter()
                .map(|&(k, end)| (Some(k), end))
                .chain([(None, scan.regs.len())])
            {
                for a in &scan.regs[done..end] {
                    file.access(a);
                }
                done = end;
                let Some(k) = k else {
                    break;
                };
                let s: Step = steps[k].into();
                let d = slots.fields(dec_row[k]);
                let clk = clk0 + k as u64;
                let ts = 4 * clk;
                let read = |reg: u8, ts: u64| RegAccess {
                    reg,
                    value: 0,
                    ts,
                    is_write: false,
                };
                file.access(&read(d.rs1, ts + 1));
                file.access(&read(d.rs2, ts + 2));
                // The scan lists only system calls here.
                let (a7, a0) = (s.rs1_val, s.rs2_val);
                let Some(mut op) =
                    ecall::record(clk, a7, a0, s.mem_addr, s.mem_val, s.rd_val, outpos)
                else {
                    return false;
                };
                let first = extra.len();
                ecall::reg_accesses(&mut op, |reg, value, ts, is_write| {
                    let access = RegAccess {
                        reg: reg as u8,
                        value,
                        ts,
                        is_write,
                    };
                    let (old, old_ts) = file.access(&access);
                    extra.push(RegRow {
                        access,
                        old,
                        old_ts,
                    });
                    old
                });
                extra_of.push(first..extra.len());
                let chains = [
                    ecall::transfer(&op).map(|(kind, buf, cnt)| (kind, buf, cnt, outpos)),
                    ecall::zero_range(&op).map(|(from, cnt)| (IO_ZERO, from, cnt, 0)),
                ];
                for (kind, from, cnt, mut pos) in chains.into_iter().flatten() {
                    for (w, lo, cnt) in io::words_of(from, cnt) {
                        let at = match kind {
                            IO_IN => {
                                if st.input.len() - input_pos < cnt as usize {
                                    return false;
                                }
                                input_pos += cnt as usize;
                                input_pos - cnt as usize
                            }
                            IO_OUT => {
                                out_len += cnt as usize;
                                out_len - cnt as usize
                            }
                            _ => 0,
                        };
                        transfers[w as usize % OWNERS].push(Transfer {
                            seq,
                            ts: clk + 1,
                            w,
                            kind,
                            lo,
                            cnt,
                            pos,
                            at,
                        });
                        seq += 1;
                        pos += cnt as u64;
                    }
                }
                let outn = ecall::outn(&op);
                let exit = ecall::is_exit(&op);
                calls.push(CallMark {
                    clk,
                    outpos,
                    outn,
                    exit,
                });
                ecalls.push(op);
                outpos += outn;
                if exit {
                    exit_code = Some(s.rs2_val);
                }
                file.access(&RegAccess {
                    reg: d.rd,
                    value: cpu::written(&s, d),
                    ts: ts + 3,
                    is_write: true,
                });
            }
        }
        par.stage_done("replay: calls");
        // 3. Memory, by owner.
        // Each owner's lists, handed over so that each frees its own (in parallel).
        let mut by_owner: Vec<Vec<Vec<Part>>> = (0..OWNERS)
            .map(|_| Vec::with_capacity(scans.len()))
            .collect();
        for scan in &mut scans {
            for (lists, parts) in by_owner.iter_mut().zip(&mut scan.parts) {
                lists.push(core::mem::take(parts));
            }
        }
        let owned = par.map_mut(&mut by_owner, |p, lists| {
            owner_replay(st, clk0, core::mem::take(lists), &transfers[p])
        });
        if owned.iter().any(|o| !o.ok) {
            return false;
        }
        par.stage_done("replay: memory");
        // Nothing failed: the replay is committed.
        let mut counts = MemCounts::default();
        for s in &scans {
            counts.loads += s.counts.loads;
            counts.stores += s.counts.stores;
            counts.mem_a += s.counts.mem_a;
            counts.mem_s += s.counts.mem_s;
        }
        counts.mem_a += seq;
        let mut moved: Vec<(Transfer, WordAccess)> = Vec::with_capacity(seq);
        let mut out: Vec<(usize, [u8; 8], u8)> = Vec::new();
        for o in owned {
            for &w in &o.touched {
                if let Some(e) = o.words.get(w / OWNERS as u32) {
                    self.st.mem.words.insert(w, e);
                }
            }
            self.rec.starts.extend(o.starts);
            moved.extend(o.transfers);
            out.extend(o.out);
        }
        moved.sort_unstable_by_key(|(t, _)| t.seq);
        out.sort_unstable_by_key(|o| o.0);
        for (t, a) in &moved {
            self.rec.io.push(io::record(t.kind, t.pos, t.lo, t.cnt, a));
            self.rec.mem_a.push(*a);
        }
        for (_, bytes, cnt) in out {
            self.st.output.extend_from_slice(&bytes[..cnt as usize]);
        }
        let st = &mut *self.st;
        (st.file, st.input_pos, st.outpos, st.exit_code) = (file, input_pos, outpos, exit_code);
        let rec = &mut self.rec;
        (rec.file_at, rec.extra, rec.extra_of, rec.ecalls, rec.calls) =
            (file_at, extra, extra_of, ecalls, calls);
        rec.counts = counts;
        true
    }
}

/// An owner's replay: its words' parts of the chunks' loads and stores (`lists`) and its
/// transfer words (`transfers`, in order), in time order.
fn owner_replay(
    st: &super::Carry<'_>,
    clk0: u64,
    lists: Vec<Vec<Part>>,
    transfers: &[Transfer],
) -> Owned {
    let mut mem = OwnerMem {
        carried: &st.mem,
        words: Words::default(),
        touched: Vec::new(),
    };
    let mut out = Owned {
        words: Words::default(),
        touched: Vec::new(),
        starts: Vec::new(),
        transfers: Vec::new(),
        out: Vec::new(),
        ok: false,
    };
    // Each word as the segment's first access finds it (one from before its first clock).
    let first = |a: &Found, w: u32, starts: &mut Vec<WordStart>| {
        if a.ts <= st.clk {
            starts.push(WordStart {
                w,
                value: a.value,
                ts: a.ts,
                ro: a.ro,
            });
        }
    };
    let mut next = transfers.iter().peekable();
    let mut bytes = Vec::new();
    let mut transfer = |t: &Transfer, mem: &mut OwnerMem<'_>, out: &mut Owned| -> Option<()> {
        let old = mem.read(t.w)?;
        let input = st.input.get(t.at..).unwrap_or(&[]);
        bytes.clear();
        let (new, _) = io::transfer(t.kind, old.value, t.lo, t.cnt, input, &mut bytes)?;
        let wr = io::writes(t.kind);
        if wr && old.ro {
            return None;
        }
        mem.write(t.w, &old, new, t.ts);
        first(&old, t.w, &mut out.starts);
        if t.kind == IO_OUT {
            let mut word = [0; 8];
            word[..bytes.len()].copy_from_slice(&bytes);
            out.out.push((t.at, word, bytes.len() as u8));
        }
        let a = WordAccess {
            w: t.w,
            old: old.value,
            new,
            old_ts: old.ts,
            ts: t.ts,
            ro: old.ro,
            wr,
        };
        out.transfers.push((*t, a));
        Some(())
    };
    for list in &lists {
        for e in list {
            let ts = clk0 + e.step() as u64 + 1;
            while let Some(t) = next.next_if(|t| t.ts < ts) {
                if transfer(t, &mut mem, &mut out).is_none() {
                    return out;
                }
            }
            let (w, m) = (e.w, e.mask());
            let Some(old) = mem.read(w) else {
                return out;
            };
            // The bytes the access reads or overwrites must be those the executor recorded.
            if old.value & m != e.found {
                return out;
            }
            let new = if !e.is_store() {
                old.value
            } else if old.ro {
                return out;
            } else {
                (old.value & !m) | e.stored
            };
            mem.write(w, &old, new, ts);
            first(&old, w, &mut out.starts);
        }
    }
    for t in next {
        if transfer(t, &mut mem, &mut out).is_none() {
            return out;
        }
    }
    (out.words, out.touched) = (mem.words, mem.touched);
    out.ok = true;
    out
}
