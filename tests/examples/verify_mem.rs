//! Verifies a `kestrel prove` file (statement, then proof) streamed from memory with the
//! verifier crate alone, and prints what it cost: peak heap (a counting allocator), stack
//! high-water (painted stack of a fresh thread), and verify time (median over runs, one
//! thread).
//!
//! ```text
//! cargo run --release -p kestrel-tests --example verify_mem -- FILE VK [RUNS]
//! ```
//!
//! `FILE` is `kestrel prove -o`'s output, `VK` the 32 bytes `kestrel vk` writes for the same
//! ELF and blowup. The file is read in place ([`SliceSource`]: the verifier rewinds and
//! reads the out-of-domain record twice); the peak heap from a source that cannot rewind
//! (a `&[u8]` that advances: the OOD values held until λ) is printed too, with the RV64IM
//! AIR's shape (what that path holds).

use std::time::Instant;

use kestrel_core::air::{Machine, TableShape};
use kestrel_core::keys::VerifyingKey;
use kestrel_core::rv::machine::Rv64Machine;
use kestrel_tests::heap::{count_heap, stack_high_water, CountingAlloc};
use kestrel_verifier::statement::verify_statement_stream;
use kestrel_verifier::SliceSource;

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(file), Some(vk)) = (args.first(), args.get(1)) else {
        eprintln!("usage: verify_mem FILE VK [RUNS]");
        std::process::exit(2);
    };
    let runs: usize = args.get(2).and_then(|r| r.parse().ok()).unwrap_or(9);
    let file = std::fs::read(file).expect("read FILE");
    let vk = std::fs::read(vk).expect("read VK");
    let vk = VerifyingKey(vk.as_slice().try_into().expect("VK is 32 bytes"));
    let verify = || {
        let mut src = SliceSource::new(std::hint::black_box(&file));
        verify_statement_stream(&vk, &mut src)
    };
    let verify_once = || {
        let mut src: &[u8] = std::hint::black_box(&file);
        verify_statement_stream(&vk, &mut src)
    };

    let (r, heap) = count_heap(verify);
    let statement = match r {
        Ok(s) => s,
        Err(e) => {
            eprintln!("invalid: {e}");
            std::process::exit(1);
        }
    };
    let (r, heap_once) = count_heap(verify_once);
    r.expect("verifies from a source that cannot rewind");
    let (r, stack) = stack_high_water(verify);
    r.expect("verifies");
    let mut times: Vec<f64> = (0..runs.max(1))
        .map(|_| {
            let t = Instant::now();
            verify().expect("verifies");
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    times.sort_by(f64::total_cmp);

    let m = Rv64Machine::verifier();
    let shapes: Vec<TableShape> = m
        .tables()
        .iter()
        .map(|t| TableShape::of(*t, statement.public().len()).expect("shape"))
        .collect();
    let ood: usize = shapes
        .iter()
        .map(|s| 2 * (s.preprocessed_width + s.width + s.aux_width) + 3 * s.quotient_chunks)
        .sum();
    println!(
        "valid: exit code {}, {} bytes of public output",
        statement.exit_code,
        statement.output.len()
    );
    println!("file:            {} bytes", file.len());
    println!(
        "AIR:             {} tables, {} OOD values ({} bytes; held until λ without rewinding)",
        shapes.len(),
        ood,
        ood * 24
    );
    println!(
        "peak heap:       {} bytes (in place, rewinding; {} allocations, {} bytes allocated in all)",
        heap.peak, heap.count, heap.total
    );
    println!(
        "peak heap, no rewind: {} bytes ({} allocations; a source that cannot rewind)",
        heap_once.peak, heap_once.count
    );
    println!("stack:           {stack} bytes (high-water, painted)");
    println!(
        "verify time:     {:.2} ms (median of {}, min {:.2} ms, one thread)",
        times[times.len() / 2],
        times.len(),
        times[0]
    );
}
