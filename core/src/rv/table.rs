//! The RV64IM tables' identities, in proof order: the one place that order is written.
//! Every per-table list elsewhere is a `match` on [`TableId`] (checked by the compiler for
//! every table) or an array indexed by [`TableId::index`].

/// A table of the RV64IM machine. The variants are declared in proof order
/// ([`Machine::tables`](crate::air::Machine::tables) order): CPU, DECODE, MEMW_R, REGISTER,
/// BITWISE, the ALU tables LT, EQ, SHIFT, MUL, DVRM, the memory tables LOAD, STORE, MEMW_A,
/// MEMW, PAGE, PAGE0, the system-call tables ECALL, IO, and MEMW_R2 (MEMW_R's rows past its
/// height when they fit a quarter of it: [`memw_r::split`](super::memw_r::split)).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TableId {
    Cpu,
    Decode,
    MemwR,
    Register,
    Bitwise,
    Lt,
    Eq,
    Shift,
    Mul,
    Dvrm,
    Load,
    Store,
    MemwA,
    Memw,
    Page,
    Page0,
    Ecall,
    Io,
    MemwR2,
}

impl TableId {
    /// The number of tables.
    pub const COUNT: usize = 19;

    /// Every table, in proof order.
    pub const ALL: [TableId; TableId::COUNT] = {
        use TableId::*;
        [
            Cpu, Decode, MemwR, Register, Bitwise, Lt, Eq, Shift, Mul, Dvrm, Load, Store, MemwA,
            Memw, Page, Page0, Ecall, Io, MemwR2,
        ]
    };

    /// The ALU tables (those receiving the ALU bus), in proof order.
    pub const ALU: [TableId; 5] = [
        TableId::Lt,
        TableId::Eq,
        TableId::Shift,
        TableId::Mul,
        TableId::Dvrm,
    ];

    /// The tables proven once per segment of a segmented run, in proof order (the rest,
    /// [`TableId::RUN_TABLES`], are proven once per run).
    pub const SEGMENT_TABLES: [TableId; 14] = tables_where(false);

    /// The tables proven once per run (in the run part of a segmented proof), in proof
    /// order: the program (DECODE), the register file's initial and final tokens (REGISTER),
    /// the byte lookups of every part (BITWISE) and memory's initial and final tokens (PAGE,
    /// PAGE0).
    pub const RUN_TABLES: [TableId; 5] = tables_where(true);

    /// Whether the table is proven once per run rather than once per segment: one of the
    /// [`TableId::RUN_TABLES`]. The one place that split is written.
    pub const fn is_run_table(self) -> bool {
        matches!(
            self,
            TableId::Decode | TableId::Register | TableId::Bitwise | TableId::Page | TableId::Page0
        )
    }

    /// The table's position in proof order.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The table at position `i` in proof order.
    pub fn from_index(i: usize) -> Option<TableId> {
        TableId::ALL.get(i).copied()
    }

    /// The table whose AIR is named `name`.
    pub fn from_name(name: &str) -> Option<TableId> {
        TableId::ALL.into_iter().find(|t| t.name() == name)
    }

    /// The name of the table's AIR.
    pub fn name(self) -> &'static str {
        match self {
            TableId::Cpu => "CPU",
            TableId::Decode => "DECODE",
            TableId::MemwR => "MEMW_R",
            TableId::Register => "REGISTER",
            TableId::Bitwise => "BITWISE",
            TableId::Lt => "LT",
            TableId::Eq => "EQ",
            TableId::Shift => "SHIFT",
            TableId::Mul => "MUL",
            TableId::Dvrm => "DVRM",
            TableId::Load => "LOAD",
            TableId::Store => "STORE",
            TableId::MemwA => "MEMW_A",
            TableId::Memw => "MEMW",
            TableId::Page => "PAGE",
            TableId::Page0 => "PAGE0",
            TableId::Ecall => "ECALL",
            TableId::Io => "IO",
            TableId::MemwR2 => "MEMW_R2",
        }
    }

    /// The table's position among the [`TableId::ALU`] tables (`None` for the others).
    pub fn alu_index(self) -> Option<usize> {
        TableId::ALU.iter().position(|&t| t == self)
    }

    /// The `i`-th of the [`TableId::ALU`] tables.
    pub fn alu(i: usize) -> Option<TableId> {
        TableId::ALU.get(i).copied()
    }
}

/// The `N` tables, in proof order, whose [`TableId::is_run_table`] is `run`; fails to
/// compile unless there are exactly `N`.
const fn tables_where<const N: usize>(run: bool) -> [TableId; N] {
    let mut out = [TableId::Cpu; N];
    let (mut i, mut n) = (0, 0);
    while i < TableId::COUNT {
        let t = TableId::ALL[i];
        if t.is_run_table() == run {
            assert!(n < N, "more tables than N");
            out[n] = t;
            n += 1;
        }
        i += 1;
    }
    assert!(n == N, "fewer tables than N");
    out
}

// `ALL` lists the variants in declaration order, so `index` (the discriminant) is the
// position in `ALL`.
const _: () = {
    let mut i = 0;
    while i < TableId::COUNT {
        assert!(TableId::ALL[i].index() == i);
        i += 1;
    }
};

impl core::fmt::Display for TableId {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::TableId;
    use alloc::vec::Vec;

    #[test]
    fn indices_and_names_round_trip() {
        for (i, t) in TableId::ALL.into_iter().enumerate() {
            assert_eq!(t.index(), i);
            assert_eq!(TableId::from_index(t.index()), Some(t));
            assert_eq!(TableId::from_name(t.name()), Some(t));
        }
        assert_eq!(TableId::from_index(TableId::COUNT), None);
        assert_eq!(TableId::from_name("OUTPUT"), None);
        for (i, t) in TableId::ALU.into_iter().enumerate() {
            assert_eq!(t.alu_index(), Some(i));
            assert_eq!(TableId::alu(i), Some(t));
        }
        assert_eq!(TableId::alu(TableId::ALU.len()), None);
        // The segment and run tables split every table, each list in proof order.
        let mut split: Vec<TableId> = TableId::SEGMENT_TABLES.into();
        split.extend(TableId::RUN_TABLES);
        split.sort();
        assert_eq!(split, TableId::ALL);
        assert!(TableId::SEGMENT_TABLES.is_sorted() && TableId::RUN_TABLES.is_sorted());
        assert!(TableId::RUN_TABLES.into_iter().all(TableId::is_run_table));
        let alu = TableId::ALL.into_iter().filter(|t| t.alu_index().is_some());
        assert!(alu.eq(TableId::ALU));
    }
}
