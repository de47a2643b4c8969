//! ECALL's records and host fill (the `trace` feature: the verifier compiles without it).

use super::*;
use crate::air::columns::Columns;
use crate::field::Felt;
use crate::matrix::RowMajorMatrix;
use crate::rv::bitwise::ByteCounts;
use crate::rv::{
    AluOp, EcallOp, ALU_SLTU, IO_IN, IO_OUT, REG_BRK, REG_HEAP_LIMIT, REG_HEAP_START, REG_INPUT,
    SYS_BRK, SYS_EXIT, SYS_READ, SYS_WRITE,
};
use alloc::vec;
use alloc::vec::Vec;

/// The call kinds, by selector column.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Call {
    Exit,
    WriteOut,
    WriteDebug,
    Read,
    Brk,
}

fn call_of(op: &EcallOp) -> Option<Call> {
    let a7 = op.a7;
    Some(match (a7, op.a0) {
        (a, _) if a == SYS_EXIT as u64 => Call::Exit,
        (a, 1) if a == SYS_WRITE as u64 => Call::WriteOut,
        (a, 2) if a == SYS_WRITE as u64 => Call::WriteDebug,
        (a, 0) if a == SYS_READ as u64 => Call::Read,
        (a, _) if a == SYS_BRK as u64 => Call::Brk,
        _ => return None,
    })
}

/// ECALL's record of the call the CPU makes at cycle `clk`: `a7` and `a0` are its rs1 and
/// rs2 values, `a1` and `a2` the arguments the executor recorded, `res` the value written
/// to `a0`, `outpos` the public output bytes written before it; `brk` and `remaining` are
/// left for [`reg_accesses`] to read. `None` for a call the proof does not cover.
#[inline]
pub fn record(
    clk: u64,
    a7: u64,
    a0: u64,
    a1: u64,
    a2: u64,
    res: u64,
    outpos: u64,
) -> Option<EcallOp> {
    let op = EcallOp {
        clk,
        a7,
        a0,
        a1,
        a2,
        res,
        outpos,
        brk: [0; 3],
        remaining: 0,
    };
    call_of(&op).map(|_| op)
}

/// The register accesses call `op` makes besides the CPU's (MEMW_R's rows after the CPU's),
/// in order: `access(reg, value, ts, is_write)` makes one (writing `value`, or reading) and
/// returns the value it found. A transfer reads `a1` and `a2`; a read reads [`REG_INPUT`]
/// (into `op.remaining`) and lowers it by the bytes returned; `brk` reads [`REG_BRK`],
/// [`REG_HEAP_LIMIT`] and [`REG_HEAP_START`] (into `op.brk`) and writes the new break.
#[inline]
pub fn reg_accesses(op: &mut EcallOp, mut access: impl FnMut(u32, u64, u64, bool) -> u64) {
    let ts = 4 * op.clk + 1;
    let call = call_of(op);
    if matches!(call, Some(Call::WriteOut | Call::WriteDebug | Call::Read)) {
        access(11, 0, ts, false);
        access(12, 0, ts, false);
    }
    if call == Some(Call::Read) {
        // The unread input bytes: read, then lowered by the bytes returned (a result above
        // them wraps here and fails the IO chain).
        op.remaining = access(REG_INPUT, 0, ts, false);
        access(REG_INPUT, remaining_after(op), ts + 1, true);
    }
    if call == Some(Call::Brk) {
        op.brk = [REG_BRK, REG_HEAP_LIMIT, REG_HEAP_START].map(|r| access(r, 0, ts, false));
        access(REG_BRK, op.res, ts + 1, true);
    }
}

/// Whether `op` is the exit call.
pub fn is_exit(op: &EcallOp) -> bool {
    call_of(op) == Some(Call::Exit)
}

/// Public output bytes `op` writes (`len` for `write(1, …)`, else 0).
pub fn outn(op: &EcallOp) -> u64 {
    match call_of(op) {
        Some(Call::WriteOut) => op.a2,
        _ => 0,
    }
}

/// The IO chain `op` runs: `(kind, buf, cnt)` for `write(1, …)` and `read(0, …)`.
pub fn transfer(op: &EcallOp) -> Option<(u32, u32, u32)> {
    match call_of(op)? {
        Call::WriteOut => Some((IO_OUT, op.a1 as u32, op.a2 as u32)),
        Call::Read => Some((IO_IN, op.a1 as u32, op.res as u32)),
        _ => None,
    }
}

/// The bytes a `brk` that lowers the break zeroes: `(res, old − res)` when `res < old`
/// (run as an IO chain of kind [`IO_ZERO`] at memory timestamp `clk + 1`, like
/// [`transfer`]'s), else `None`.
pub fn zero_range(op: &EcallOp) -> Option<(u32, u32)> {
    match call_of(op)? {
        Call::Brk if op.res < op.brk[0] => Some((op.res as u32, (op.brk[0] - op.res) as u32)),
        _ => None,
    }
}

/// The operations `op`'s row sends on [`BUS_ALU`] (for LT's trace builder).
pub fn alu_lookups(op: &EcallOp) -> Vec<AluOp> {
    let sltu = |a: u64, b: u64| AluOp {
        op: ALU_SLTU,
        a,
        b,
        c: (a < b) as u64,
    };
    match call_of(op) {
        Some(Call::Read) => vec![
            AluOp {
                op: ALU_SLTU,
                a: op.a2,
                b: op.res,
                c: 0,
            },
            sltu(op.res, op.a2),
        ],
        Some(Call::Brk) => vec![
            sltu(op.a0, op.brk[2]),
            sltu(op.brk[1], op.a0),
            sltu(op.res, op.brk[0]),
        ],
        _ => Vec::new(),
    }
}

/// The input bytes left after `op` (a read: `remaining − res`, wrapping if `op` is no
/// honest read, whose trace then fails; other calls: `remaining`).
pub fn remaining_after(op: &EcallOp) -> u64 {
    match call_of(op) {
        Some(Call::Read) => op.remaining.wrapping_sub(op.res),
        _ => op.remaining,
    }
}

/// ECALL's trace for `ops`, one row each, recording its byte lookups (a read's `rem'`) in
/// `bytes`: [`fill`] and [`lookups`]. A call that no selector covers (another `a7` or fd)
/// gets an all-zero row, which receives nothing: the CPU's send stays unbalanced. Height:
/// the next power of two ≥ 8.
pub fn build_trace(ops: &[EcallOp], bytes: &mut ByteCounts) -> RowMajorMatrix {
    lookups(ops, bytes);
    fill(ops)
}

/// ECALL's byte lookups for `ops` (what [`build_trace`] records; the padding rows make
/// none): a read's `rem'` bytes, as two range checks.
pub fn lookups(ops: &[EcallOp], bytes: &mut ByteCounts) {
    for op in ops {
        if call_of(op) == Some(Call::Read) {
            let a = remaining_after(op).to_le_bytes();
            bytes.range(a[0], a[1]);
            bytes.range(a[2], a[3]);
        }
    }
}

/// [`call_kind`] of `exit`.
pub const CALL_EXIT: u32 = 1;
/// [`call_kind`] of `write(1, …)`.
pub const CALL_WOUT: u32 = 2;
/// [`call_kind`] of `write(2, …)`.
pub const CALL_WDBG: u32 = 3;
/// [`call_kind`] of `read(0, …)`.
pub const CALL_READ: u32 = 4;
/// [`call_kind`] of `brk`.
pub const CALL_BRK: u32 = 5;

/// The call kind of `op` as the device fill packs it (`kernels/rv/ecall.cu`): 0 for a call
/// no selector covers (an all-zero row), else 1 + its selector's index ([`SEL_EXIT`] ..
/// [`SEL_BRK`]): [`CALL_EXIT`], [`CALL_WOUT`], [`CALL_WDBG`], [`CALL_READ`], [`CALL_BRK`].
pub fn call_kind(op: &EcallOp) -> u32 {
    match call_of(op) {
        None => 0,
        Some(Call::Exit) => CALL_EXIT,
        Some(Call::WriteOut) => CALL_WOUT,
        Some(Call::WriteDebug) => CALL_WDBG,
        Some(Call::Read) => CALL_READ,
        Some(Call::Brk) => CALL_BRK,
    }
}

/// ECALL's trace for `ops` without the byte lookups (what [`build_trace`] builds; the fill
/// the device kernel makes). Padding rows are all zero.
pub fn fill(ops: &[EcallOp]) -> RowMajorMatrix {
    let h = ops.len().next_power_of_two().max(crate::params::MIN_ROWS);
    let mut t = RowMajorMatrix::zeros(h, WIDTH);
    for (r, op) in ops.iter().enumerate() {
        let Some(call) = call_of(op) else {
            continue;
        };
        let mut row = EcallCols::from_fn(|_| Felt::ZERO);
        let put = |x: &mut [Felt; 8], v: u64| {
            for (i, byte) in v.to_le_bytes().into_iter().enumerate() {
                x[i] = Felt::from(byte as u32);
            }
        };
        match call {
            Call::Exit => row.sel_exit = Felt::ONE,
            Call::WriteOut => row.sel_wout = Felt::ONE,
            Call::WriteDebug => row.sel_wdbg = Felt::ONE,
            Call::Read => row.sel_read = Felt::ONE,
            Call::Brk => row.sel_brk = Felt::ONE,
        }
        row.clk = Felt::new(op.clk);
        put(&mut row.a7, op.a7);
        put(&mut row.a0, op.a0);
        put(&mut row.res, op.res);
        row.outpos = Felt::new(op.outpos);
        row.outn = Felt::new(outn(op));
        match call {
            Call::WriteOut | Call::WriteDebug => {
                put(&mut row.a1, op.a1);
                put(&mut row.a2, op.a2);
            }
            Call::Read => {
                put(&mut row.a1, op.a1);
                put(&mut row.a2, op.a2);
                // REG_INPUT's four low bytes (its high bytes are zero in an honest run).
                let after = remaining_after(op);
                for (i, (rb, ab)) in op
                    .remaining
                    .to_le_bytes()
                    .into_iter()
                    .zip(after.to_le_bytes())
                    .take(4)
                    .enumerate()
                {
                    row.rem[i] = Felt::from(rb as u32);
                    row.rem_new[i] = Felt::from(ab as u32);
                }
                row.short = Felt::from(op.res < op.a2);
            }
            Call::Brk => {
                put(&mut row.brk_old, op.brk[0]);
                put(&mut row.limit, op.brk[1]);
                put(&mut row.hstart, op.brk[2]);
                let lt_lo = op.a0 < op.brk[2];
                let lt_hi = op.brk[1] < op.a0;
                row.lt_lo = Felt::from(lt_lo);
                row.lt_hi = Felt::from(lt_hi);
                row.out = Felt::from(lt_lo || lt_hi);
                row.shrink = Felt::from(op.res < op.brk[0]);
            }
            Call::Exit => {}
        }
        row.write(t.row_mut(r));
    }
    t
}
