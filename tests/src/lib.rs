//! Shared helpers for Kestrel's integration tests.
pub mod alu_proof;
pub mod cli_bin;
pub mod codec;
#[cfg(feature = "cuda")]
pub mod distinct_fill;
pub mod forge;
pub mod heap;
pub mod mutation;
pub mod register_program;
pub mod vm_support;

use kestrel_core::matrix::RowMajorMatrix;

/// Where a device-filled trace first differs from the host's: `row r column c: device x
/// host y`, or the two shapes when every shared cell agrees.
pub fn first_diff(device: &RowMajorMatrix, host: &RowMajorMatrix) -> String {
    for (k, (x, y)) in device.values.iter().zip(&host.values).enumerate() {
        if x != y {
            return format!(
                "row {} column {}: device {} host {}",
                k / device.width,
                k % device.width,
                x.as_u64(),
                y.as_u64()
            );
        }
    }
    format!(
        "shapes {}x{} vs {}x{}",
        device.height(),
        device.width,
        host.height(),
        host.width
    )
}
