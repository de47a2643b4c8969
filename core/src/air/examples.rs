//! Small AIRs that exercise the framework before any VM table exists: a Fibonacci table,
//! and a two-table LogUp example where one table sends values that a byte range-check table
//! receives with multiplicities.

use alloc::vec;
use alloc::vec::Vec;

use super::{Air, AirBuilder, Direction, Machine, PublicInteraction, TableAir};
use crate::field::Felt;
use crate::matrix::RowMajorMatrix;

/// Columns `(a, b)`: `a' = b`, `b' = a + b`; starts at `(pub0, pub1)`, ends with `b = pub2`.
pub struct FibonacciAir;

impl Air for FibonacciAir {
    fn name(&self) -> &str {
        "FIB"
    }
    fn width(&self) -> usize {
        2
    }
    fn eval<B: AirBuilder>(&self, b: &mut B) {
        let (a, x) = (b.main(0), b.main(1));
        let (a_next, x_next) = (b.main_next(0), b.main_next(1));
        b.assert_first("fib a starts at pub0", a.clone() - b.public(0));
        b.assert_first("fib b starts at pub1", x.clone() - b.public(1));
        b.assert_transition("fib a' = b", a_next - x.clone());
        b.assert_transition("fib b' = a + b", x_next - (a + x.clone()));
        b.assert_last("fib result is pub2", x - b.public(2));
    }
}

/// The Fibonacci statement: public values `[a0, b0, result]`.
pub struct FibonacciMachine;

impl Machine for FibonacciMachine {
    fn name(&self) -> &str {
        "fibonacci"
    }
    fn tables(&self) -> Vec<&dyn TableAir> {
        vec![&FibonacciAir]
    }
    fn num_public_values(&self) -> usize {
        3
    }
}

/// The Fibonacci trace of `2^log_n` rows from `(a0, b0)`; returns it and the result.
pub fn fibonacci_trace(log_n: u32, a0: Felt, b0: Felt) -> (RowMajorMatrix, Felt) {
    let n = 1usize << log_n;
    let mut values = Vec::with_capacity(2 * n);
    let (mut a, mut b) = (a0, b0);
    for _ in 0..n {
        values.push(a);
        values.push(b);
        let next = a + b;
        a = b;
        b = next;
    }
    let result = values[2 * n - 1];
    (RowMajorMatrix::new(values, 2), result)
}

/// The `b` value of the last row of [`fibonacci_trace`], without building the trace.
pub fn fibonacci_trace_result(log_n: u32, a0: Felt, b0: Felt) -> Felt {
    let (mut a, mut b) = (a0, b0);
    for _ in 1..(1u64 << log_n) {
        let next = a + b;
        a = b;
        b = next;
    }
    b
}

/// The bus on which byte values are range-checked.
pub const BYTE_BUS: u32 = 1;

/// Columns `(x, y, z, sel)`: `z = x + y` where `sel = 1`, `sel` boolean; sends `x`, `y`, `z`
/// (multiplicity `sel`) to the byte bus, and sends the pair `(x, y)` on a second bus that
/// nobody receives unless `sel = 0` — exercising multi-value tuples.
pub struct SumSenderAir;

/// Tuples sent with multiplicity 0 on this bus cancel trivially; used to test that values
/// of several columns fingerprint correctly.
pub const PAIR_BUS: u32 = 2;

impl Air for SumSenderAir {
    fn name(&self) -> &str {
        "SENDER"
    }
    fn width(&self) -> usize {
        4
    }
    fn eval<B: AirBuilder>(&self, b: &mut B) {
        let (x, y, z, sel) = (b.main(0), b.main(1), b.main(2), b.main(3));
        b.assert_bool("sender sel is boolean", sel.clone());
        b.assert_zero(
            "sender z = x + y",
            sel.clone() * (z.clone() - x.clone() - y.clone()),
        );
        b.send(BYTE_BUS, sel.clone(), core::slice::from_ref(&x));
        b.send(BYTE_BUS, sel.clone(), core::slice::from_ref(&y));
        b.send(BYTE_BUS, sel.clone(), &[z]);
        // (1 − sel)·(x, y) sent and received in the same row: balanced by construction.
        let off = B::Expr::from(Felt::ONE) - sel;
        b.interact(
            PAIR_BUS,
            Direction::Send,
            off.clone(),
            &[x.clone(), y.clone()],
        );
        b.interact(PAIR_BUS, Direction::Receive, off, &[x, y]);
    }
}

/// Preprocessed column `v = 0..255`, main column `m`: receives `v` with multiplicity `m`.
pub struct ByteRangeAir;

impl Air for ByteRangeAir {
    fn name(&self) -> &str {
        "BYTE_RANGE"
    }
    fn width(&self) -> usize {
        1
    }
    fn preprocessed_width(&self) -> usize {
        1
    }
    fn preprocessed_trace(&self) -> Option<(Vec<Felt>, u32)> {
        Some(((0..256u32).map(Felt::from).collect(), 8))
    }
    fn eval<B: AirBuilder>(&self, b: &mut B) {
        let v = b.preprocessed(0);
        let m = b.main(0);
        b.receive(BYTE_BUS, m, &[v]);
    }
}

/// The two-table statement. Public value `[p]`: a byte the verifier itself sends to the
/// range check.
pub struct RangeCheckMachine;

impl Machine for RangeCheckMachine {
    fn name(&self) -> &str {
        "range-check"
    }
    fn tables(&self) -> Vec<&dyn TableAir> {
        vec![&SumSenderAir, &ByteRangeAir]
    }
    fn num_public_values(&self) -> usize {
        1
    }
    fn public_interactions(&self, public: &[Felt]) -> Vec<PublicInteraction> {
        public
            .iter()
            .map(|&p| PublicInteraction {
                bus: BYTE_BUS,
                direction: Direction::Send,
                multiplicity: Felt::ONE,
                values: vec![p],
            })
            .collect()
    }
}

/// Sender and range-check traces for `2^log_n` sender rows drawn from `seed`, with the
/// public byte `p`. Rows with odd index have `sel = 0` and arbitrary `(x, y, z)`.
pub fn range_check_traces(log_n: u32, seed: u64, p: u8) -> [RowMajorMatrix; 2] {
    let n = 1usize << log_n;
    let mut state = seed | 1;
    let mut next = move || {
        // xorshift64*: deterministic, dependency-free test data.
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_F491_4F6C_DD1D)
    };
    let mut counts = [0u64; 256];
    counts[p as usize] += 1;
    let mut sender = Vec::with_capacity(4 * n);
    for i in 0..n {
        let r = next();
        if i % 2 == 0 {
            let x = (r & 0x7f) as u8;
            let y = ((r >> 8) & 0x7f) as u8;
            let z = x + y;
            for v in [x, y, z] {
                counts[v as usize] += 1;
            }
            sender.extend([x, y, z, 1].map(|v| Felt::from(v as u32)));
        } else {
            sender.extend([
                Felt::new(r),
                Felt::new(r >> 7),
                Felt::new(r.rotate_left(9)),
                Felt::ZERO,
            ]);
        }
    }
    let range = counts.iter().map(|&c| Felt::new(c)).collect();
    [
        RowMajorMatrix::new(sender, 4),
        RowMajorMatrix::new(range, 1),
    ]
}
