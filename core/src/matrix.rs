//! A row-major matrix of field elements: the layout of traces and committed LDEs.

use alloc::vec::Vec;

use crate::field::Felt;

/// `height × width` values, row after row.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RowMajorMatrix<T = Felt> {
    pub values: Vec<T>,
    pub width: usize,
}

impl<T: Copy + Default> RowMajorMatrix<T> {
    /// # Panics
    /// If `values.len()` is not a multiple of a nonzero `width`.
    pub fn new(values: Vec<T>, width: usize) -> Self {
        assert!(width > 0 && values.len() % width == 0, "matrix shape");
        RowMajorMatrix { values, width }
    }

    pub fn zeros(height: usize, width: usize) -> Self {
        RowMajorMatrix {
            values: alloc::vec![T::default(); height * width],
            width,
        }
    }

    pub fn height(&self) -> usize {
        self.values.len().checked_div(self.width).unwrap_or(0)
    }

    #[inline(always)]
    pub fn row(&self, r: usize) -> &[T] {
        &self.values[r * self.width..(r + 1) * self.width]
    }

    #[inline(always)]
    pub fn row_mut(&mut self, r: usize) -> &mut [T] {
        &mut self.values[r * self.width..(r + 1) * self.width]
    }

    pub fn rows(&self) -> core::slice::ChunksExact<'_, T> {
        self.values.chunks_exact(self.width.max(1))
    }
}
