//! json-rs: decodes the private input, a JSON document `{"name": STRING, "values": [U64, ...]}`,
//! with `serde` + `serde_json` (no_std, `alloc`), and commits `name=NAME count=N sum=SUM\n`
//! (the sum wraps modulo 2^64). Invalid JSON, or JSON of another shape: exit code 1 and
//! nothing committed.
#![no_std]
#![no_main]
extern crate alloc;

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use serde::Deserialize;

kestrel_guest::entry!(main);

#[derive(Deserialize)]
struct Doc {
    name: String,
    values: Vec<u64>,
}

fn main() -> i32 {
    let input = kestrel_guest::read_input();
    let doc: Doc = match serde_json::from_slice(&input) {
        Ok(doc) => doc,
        Err(_) => {
            kestrel_guest::debug("json-rs: invalid input\n");
            return 1;
        }
    };
    let sum = doc.values.iter().fold(0u64, |a, &v| a.wrapping_add(v));
    let summary = format!("name={} count={} sum={}\n", doc.name, doc.values.len(), sum);
    kestrel_guest::commit(summary.as_bytes());
    0
}
