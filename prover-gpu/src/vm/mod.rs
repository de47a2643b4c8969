//! RV64IM ELF loading, execution and event recording (issue 3).
