//! Typed columns: a table's main columns are one `#[repr(C)]` struct generic over the cell
//! type, declared with [`columns!`](crate::columns). The struct is the single source of the
//! layout: the width is its number of cells ([`Columns::WIDTH`]), a column's index is its
//! field's offset ([`col!`](crate::col)), the constraints read a row of expressions as the
//! struct (`from_fn(|i| builder.main(i))`), and the host fills build a row as the struct
//! and write it ([`Columns::write`]). The CUDA kernels' copies of the offsets are checked
//! against these on the CPU (`tests/tests/kernel_layout.rs`). No `unsafe`: the struct is
//! built and written field by field, in declaration order, which `#[repr(C)]` makes the
//! offsets' order (checked at compile time).
//!
//! ```
//! use kestrel_core::air::columns::Columns;
//! use kestrel_core::{col, columns};
//!
//! columns! {
//!     /// A toy table.
//!     pub struct Toy {
//!         /// A flag.
//!         flag,
//!         /// Eight bytes.
//!         bytes[8],
//!         /// A count.
//!         m,
//!     }
//! }
//! assert_eq!(<Toy<u64> as Columns<u64>>::WIDTH, 10);
//! assert_eq!((col!(Toy, flag), col!(Toy, bytes), col!(Toy, m)), (0, 1, 9));
//! let exprs: Toy<usize> = Toy::from_fn(|i| 100 + i);
//! assert_eq!((exprs.flag, exprs.bytes[3], exprs.m), (100, 104, 109));
//! let mut row = [0u64; 10];
//! let mut toy = Toy::read(&row);
//! toy.bytes[3] = 7;
//! toy.m = 9;
//! toy.write(&mut row);
//! assert_eq!(row[col!(Toy, bytes) + 3], 7);
//! assert_eq!(row[col!(Toy, m)], 9);
//! // Cell i of from_fn lands in column i.
//! let mut row = [0usize; 10];
//! Toy::from_fn(|i| i).write(&mut row);
//! assert_eq!(row, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
//! ```

/// A columns struct: `WIDTH` cells of type `T`, in the order of their offsets.
pub trait Columns<T>: Sized {
    /// The number of cells (columns).
    const WIDTH: usize;

    /// The struct whose cell `i` is `f(i)`, called for `i = 0, 1, …` in order (e.g. the
    /// builder's `main(i)` expressions of a row).
    fn from_fn(f: impl FnMut(usize) -> T) -> Self;

    /// Writes the cells into the first `WIDTH` cells of `row`.
    ///
    /// # Panics
    /// If `row` is shorter than `WIDTH`.
    fn write(self, row: &mut [T]);

    /// The first `WIDTH` cells of `row` as the struct.
    ///
    /// # Panics
    /// If `row` is shorter than `WIDTH`.
    fn read(row: &[T]) -> Self
    where
        T: Clone,
    {
        Self::from_fn(|i| row[i].clone())
    }
}

/// Declares a table's columns: a `#[repr(C)]` struct generic over the cell type `T` whose
/// fields are cells (`name`) or arrays of cells (`name[N]`), and its [`Columns`]
/// implementation. See the module doc.
#[macro_export]
macro_rules! columns {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident {
            $( $(#[$fmeta:meta])* $field:ident $([$n:expr])? ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[repr(C)]
        $vis struct $name<T> {
            $( $(#[$fmeta])* pub $field: $crate::columns!(@ty T $(, $n)?), )*
        }

        // The cells, counted field by field, are the struct's size for one-byte cells: no
        // padding, no field of another type, offsets in declaration order.
        const _: () = assert!(
            ::core::mem::size_of::<$name<u8>>() == 0 $( + $crate::columns!(@n $($n)?) )*
                && ::core::mem::size_of::<$name<u64>>()
                    == 8 * ::core::mem::size_of::<$name<u8>>()
        );

        impl<T> $crate::air::columns::Columns<T> for $name<T> {
            const WIDTH: usize = 0 $( + $crate::columns!(@n $($n)?) )*;

            fn from_fn(mut f: impl FnMut(usize) -> T) -> Self {
                let mut i = 0usize;
                let mut next = || {
                    let v = f(i);
                    i += 1;
                    v
                };
                // Struct fields are evaluated in the order written.
                $name {
                    $( $field: $crate::columns!(@init next $(, $n)?), )*
                }
            }

            fn write(self, row: &mut [T]) {
                let row = &mut row[..<Self as $crate::air::columns::Columns<T>>::WIDTH];
                let mut cells = row.iter_mut();
                $( $crate::columns!(@write cells, self.$field $(, $n)?); )*
            }
        }
    };
    (@ty $t:ident) => { $t };
    (@ty $t:ident, $n:expr) => { [$t; $n] };
    (@n) => { 1 };
    (@n $n:expr) => { $n };
    (@init $next:ident) => { $next() };
    (@init $next:ident, $n:expr) => { ::core::array::from_fn(|_| $next()) };
    (@write $cells:ident, $v:expr) => {
        if let Some(c) = $cells.next() {
            *c = $v;
        }
    };
    (@write $cells:ident, $v:expr, $n:expr) => {
        // Array by array, so that no cell after it is taken (as a zip would).
        for v in $v {
            if let Some(c) = $cells.next() {
                *c = v;
            }
        }
    };
}

/// The index of column `field` of the columns struct `$name` (its offset in cells).
#[macro_export]
macro_rules! col {
    ($name:ident, $field:ident) => {
        ::core::mem::offset_of!($name<u8>, $field)
    };
}
