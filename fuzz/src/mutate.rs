//! Structure-aware mutations of a decoded proof.
//!
//! The fuzz input is read as a list of operations. Each picks one field of the
//! [`ProofBody`] (proof format 9) — a parameter, the nonce, any list at any depth (round
//! caps, heights, totals, OOD values, FRI layers' caps, queries, per-table opened rows, the
//! queries' per-round Merkle paths, FRI steps) — and
//! changes it: a scalar is set or nudged; a list grows, shrinks, is cleared, has an element
//! removed, duplicated, swapped or replaced, or one of its elements nudged. The result is
//! re-encoded with [`ProofBody::to_bytes`], so lengths and counts stay consistent with the
//! encoding and reach the verifier's shape and cryptographic checks instead of stopping at
//! the decoder.

use arbitrary::{Result, Unstructured};
use kestrel_core::field::{Ext3, Felt};
use kestrel_core::merkle::Digest;
use kestrel_core::proof::{FriStep, ProofBody, QueryProof, TableOod};

/// A leaf element: something a fresh value can be drawn for, and that can be nudged.
trait Leaf: Clone {
    fn fresh(u: &mut Unstructured) -> Result<Self>;
    fn nudge(&mut self, u: &mut Unstructured) -> Result<()>;
}

impl Leaf for Felt {
    fn fresh(u: &mut Unstructured) -> Result<Self> {
        Ok(Felt::new(u.arbitrary()?))
    }
    fn nudge(&mut self, u: &mut Unstructured) -> Result<()> {
        let d: u64 = u.arbitrary()?;
        *self += Felt::new(d | 1);
        Ok(())
    }
}

impl Leaf for Ext3 {
    fn fresh(u: &mut Unstructured) -> Result<Self> {
        Ok(Ext3::new(Felt::fresh(u)?, Felt::fresh(u)?, Felt::fresh(u)?))
    }
    fn nudge(&mut self, u: &mut Unstructured) -> Result<()> {
        let mut c = self.coords();
        let i = u.choose_index(3)?;
        c[i].nudge(u)?;
        *self = Ext3::new(c[0], c[1], c[2]);
        Ok(())
    }
}

impl Leaf for Digest {
    fn fresh(u: &mut Unstructured) -> Result<Self> {
        Ok(Digest(u.arbitrary()?))
    }
    fn nudge(&mut self, u: &mut Unstructured) -> Result<()> {
        let i = u.choose_index(32)?;
        let x: u8 = u.arbitrary()?;
        self.0[i] ^= x | 1;
        Ok(())
    }
}

impl Leaf for u8 {
    fn fresh(u: &mut Unstructured) -> Result<Self> {
        u.arbitrary()
    }
    fn nudge(&mut self, u: &mut Unstructured) -> Result<()> {
        let d: i8 = u.arbitrary()?;
        *self = self.wrapping_add(if d == 0 { 1 } else { d as u8 });
        Ok(())
    }
}

/// Largest length a list may grow to: enough to overshoot every expected length.
const MAX_GROW: usize = 600;

/// A change to the length or order of a list, whatever its elements.
fn reshape<T: Clone>(v: &mut Vec<T>, u: &mut Unstructured) -> Result<()> {
    match u.choose_index(7)? {
        0 => {
            v.pop();
        }
        1 => v.clear(),
        2 => {
            if !v.is_empty() {
                let i = u.choose_index(v.len())?;
                v.remove(i);
            }
        }
        3 => {
            if !v.is_empty() {
                let i = u.choose_index(v.len())?;
                let e = v[i].clone();
                let at = u.choose_index(v.len() + 1)?;
                v.insert(at, e);
            }
        }
        4 => {
            if v.len() >= 2 {
                let i = u.choose_index(v.len())?;
                let j = u.choose_index(v.len())?;
                v.swap(i, j);
            }
        }
        5 => {
            let n = u.int_in_range(0..=v.len())?;
            v.truncate(n);
        }
        _ => {
            if let Some(last) = v.last().cloned() {
                let n = u.int_in_range(1..=MAX_GROW.saturating_sub(v.len()).max(1))?;
                v.extend(core::iter::repeat_n(last, n));
            }
        }
    }
    Ok(())
}

/// A change to a list of leaves: any reshape, or a new, replaced or nudged element.
fn leaves<T: Leaf>(v: &mut Vec<T>, u: &mut Unstructured) -> Result<()> {
    match u.choose_index(4)? {
        0 => reshape(v, u),
        1 => {
            let e = T::fresh(u)?;
            let at = u.choose_index(v.len() + 1)?;
            v.insert(at, e);
            Ok(())
        }
        2 => {
            if !v.is_empty() {
                let i = u.choose_index(v.len())?;
                v[i] = T::fresh(u)?;
            }
            Ok(())
        }
        _ => {
            if !v.is_empty() {
                let i = u.choose_index(v.len())?;
                v[i].nudge(u)?;
            }
            Ok(())
        }
    }
}

/// Picks an element of a list (None when it is empty).
fn pick<'a, T>(v: &'a mut [T], u: &mut Unstructured) -> Result<Option<&'a mut T>> {
    if v.is_empty() {
        return Ok(None);
    }
    let i = u.choose_index(v.len())?;
    Ok(v.get_mut(i))
}

fn mutate_ood(o: &mut TableOod, u: &mut Unstructured) -> Result<()> {
    let field = match u.choose_index(7)? {
        0 => &mut o.pre,
        1 => &mut o.pre_next,
        2 => &mut o.main,
        3 => &mut o.main_next,
        4 => &mut o.aux,
        5 => &mut o.aux_next,
        _ => &mut o.quotient,
    };
    leaves(field, u)
}

/// A list of lists of leaves (FRI caps, a query's round paths): the outer list reshaped,
/// or one inner list changed.
fn nested<T: Leaf>(v: &mut Vec<Vec<T>>, u: &mut Unstructured) -> Result<()> {
    if u.arbitrary()? {
        reshape(v, u)
    } else {
        if let Some(l) = pick(v, u)? {
            leaves(l, u)?;
        }
        Ok(())
    }
}

fn mutate_fri_step(s: &mut FriStep, u: &mut Unstructured) -> Result<()> {
    if u.arbitrary()? {
        if u.arbitrary()? {
            match pick(&mut s.siblings, u)? {
                Some(e) => e.nudge(u),
                None => Ok(()),
            }
        } else {
            leaves(&mut s.siblings, u)
        }
    } else {
        leaves(&mut s.path, u)
    }
}

fn mutate_query(q: &mut QueryProof, u: &mut Unstructured) -> Result<()> {
    match u.choose_index(7)? {
        0 => reshape(&mut q.tables, u),
        1 => {
            if let Some(t) = pick(&mut q.tables, u)? {
                reshape(t, u)?;
            }
            Ok(())
        }
        2 => {
            if let Some(t) = pick(&mut q.tables, u)? {
                if let Some(row) = pick(t, u)? {
                    leaves(row, u)?;
                }
            }
            Ok(())
        }
        3 => nested(&mut q.paths, u),
        4 => reshape(&mut q.fri, u),
        _ => {
            if let Some(s) = pick(&mut q.fri, u)? {
                mutate_fri_step(s, u)?;
            }
            Ok(())
        }
    }
}

/// Applies one mutation chosen by `u` to some field of `p`.
pub fn mutate_once(p: &mut ProofBody, u: &mut Unstructured) -> Result<()> {
    match u.choose_index(20)? {
        0 => p.params.log_blowup.nudge(u),
        1 => {
            p.params.num_queries = u.arbitrary()?;
            Ok(())
        }
        2 => p.params.pow_bits.nudge(u),
        3 => p.params.log_final_poly_len.nudge(u),
        4 => {
            let d: u64 = u.arbitrary()?;
            p.pow_nonce = p.pow_nonce.wrapping_add(d | 1);
            Ok(())
        }
        5 => leaves(&mut p.preprocessed_cap, u),
        6 => leaves(&mut p.log_heights, u),
        7 => leaves(&mut p.main_cap, u),
        8 => leaves(&mut p.totals, u),
        9 => leaves(&mut p.aux_cap, u),
        10 => leaves(&mut p.quotient_cap, u),
        11 => reshape(&mut p.ood, u),
        12 => {
            if let Some(o) = pick(&mut p.ood, u)? {
                mutate_ood(o, u)?;
            }
            Ok(())
        }
        13 => nested(&mut p.fri_caps, u),
        14 => leaves(&mut p.final_poly, u),
        15 => reshape(&mut p.queries, u),
        _ => {
            if let Some(q) = pick(&mut p.queries, u)? {
                mutate_query(q, u)?;
            }
            Ok(())
        }
    }
}

/// Applies one to eight mutations; stops early when the input runs out.
pub fn mutate(p: &mut ProofBody, u: &mut Unstructured) -> Result<()> {
    let n = u.int_in_range(1..=8u8)?;
    for _ in 0..n {
        mutate_once(p, u)?;
    }
    Ok(())
}
