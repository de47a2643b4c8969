//! LogUp: fingerprints, the auxiliary column layout, and the constraints the framework
//! appends to every table with interactions.
//!
//! Layout of a table with `I > 0` interactions: `⌈I/2⌉` extension columns `h_j`, then the
//! running sum `S`; each extension column is committed as three base columns (its
//! coordinates). Row `i`: `h_j = Σ_{k∈pair j} s_k·m_k / f_k`, `S_0 = Σ_j h_j(0)`,
//! `S_{i+1} = S_i + Σ_j h_j(i+1)`, and `S_{n−1}` is the table's total in the proof.

use super::{ConstraintAccumulator, ConstraintClass, Direction};
use crate::field::{Ext3, Felt};

/// Extension columns of the auxiliary trace for `num_interactions` interactions.
pub const fn aux_ext_columns(num_interactions: usize) -> usize {
    if num_interactions == 0 {
        0
    } else {
        num_interactions.div_ceil(2) + 1
    }
}

/// Constraints the framework appends for `num_interactions` interactions.
pub const fn logup_constraint_count(num_interactions: usize) -> usize {
    if num_interactions == 0 {
        0
    } else {
        num_interactions.div_ceil(2) + 3
    }
}

/// `β − (bus + α·v1 + α²·v2 + …)`; `alpha_powers[k] = α^{k+1}`.
#[inline]
pub fn fingerprint<V: Copy>(bus: u32, values: &[V], alpha_powers: &[Ext3], beta: Ext3) -> Ext3
where
    Ext3: core::ops::Mul<V, Output = Ext3>,
{
    let mut acc = Ext3::from(Felt::from(bus));
    for (v, a) in values.iter().zip(alpha_powers) {
        acc += *a * *v;
    }
    beta - acc
}

/// The signed multiplicity `±m` of an interaction.
#[inline(always)]
pub fn signed<E: core::ops::Neg<Output = E>>(direction: Direction, m: E) -> E {
    match direction {
        Direction::Send => m,
        Direction::Receive => -m,
    }
}

/// Emits the LogUp constraints for one row.
///
/// `inters[k] = (s_k·m_k, f_k)`; `aux` and `aux_next` are the row's extension columns
/// `[h_0, …, h_{p−1}, S]`. The caller checked `aux.len() == aux_ext_columns(inters.len())`.
pub fn eval_logup(
    inters: &[(Ext3, Ext3)],
    aux: &[Ext3],
    aux_next: &[Ext3],
    total: Ext3,
    acc: &mut ConstraintAccumulator<'_>,
) {
    if inters.is_empty() {
        return;
    }
    let pairs = inters.len().div_ceil(2);
    let mut h_sum = Ext3::ZERO;
    let mut h_next_sum = Ext3::ZERO;
    for (j, pair) in inters.chunks(2).enumerate() {
        let h = aux[j];
        h_sum += h;
        h_next_sum += aux_next[j];
        let c = match *pair {
            [(ma, fa), (mb, fb)] => h * fa * fb - (ma * fb + mb * fa),
            [(ma, fa)] => h * fa - ma,
            _ => unreachable!("chunks(2) yields one or two"),
        };
        acc.add_ext(ConstraintClass::AllRows, c);
    }
    let s = aux[pairs];
    let s_next = aux_next[pairs];
    acc.add_ext(ConstraintClass::FirstRow, s - h_sum);
    acc.add_ext(ConstraintClass::Transition, s_next - s - h_next_sum);
    acc.add_ext(ConstraintClass::LastRow, s - total);
}
