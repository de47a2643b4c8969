//! The verifier's README, end to end: `kestrel prove` and `kestrel vk` write a proof file
//! and a key, and an embedder checks the file with the `kestrel-verifier` crate alone,
//! streaming it through its own [`ProofSource`] (here a file read in small pieces, as a
//! link would deliver it) and from memory.

use std::io::Read;
use std::process::Command;

use kestrel_tests::cli_bin::kestrel;
use kestrel_verifier::kestrel_core::keys::VerifyingKey;
use kestrel_verifier::statement::{verify_statement_file, verify_statement_stream, FileError};
use kestrel_verifier::{ProofSource, SourceError, VerifyError};

/// A proof arriving over a link: whatever `Read` yields, in the pieces the verifier asks for.
struct Link<R: Read>(R);

impl<R: Read> ProofSource for Link<R> {
    fn read_exact(&mut self, buf: &mut [u8]) -> Result<(), SourceError> {
        self.0.read_exact(buf).map_err(|e| match e.kind() {
            std::io::ErrorKind::UnexpectedEof => SourceError::End,
            _ => SourceError::Failed,
        })
    }
}

#[test]
fn a_kestrel_prove_file_verifies_with_the_verifier_crate_alone() {
    let dir = std::env::temp_dir().join(format!("kestrel-embedder-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (input, proof, vk) = (dir.join("in"), dir.join("fib.proof"), dir.join("fib.vk"));
    std::fs::write(&input, b"10").unwrap();
    let elf = kestrel_tests::vm_support::guest_path("fibonacci");
    let run = |args: &[&std::ffi::OsStr]| {
        let out = Command::new(kestrel())
            .args(args)
            .output()
            .expect("kestrel runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    run(&[
        "prove".as_ref(),
        elf.as_os_str(),
        "--input".as_ref(),
        input.as_os_str(),
        "--backend".as_ref(),
        "cpu".as_ref(),
        "--blowup".as_ref(),
        "8".as_ref(),
        "-o".as_ref(),
        proof.as_os_str(),
    ]);
    run(&[
        "vk".as_ref(),
        elf.as_os_str(),
        "--blowup".as_ref(),
        "8".as_ref(),
        "-o".as_ref(),
        vk.as_os_str(),
    ]);

    // What the embedder does: 32 bytes of key, the file streamed.
    let key = VerifyingKey(std::fs::read(&vk).unwrap().try_into().expect("32 bytes"));
    let mut link = Link(std::io::BufReader::new(
        std::fs::File::open(&proof).unwrap(),
    ));
    let statement = verify_statement_stream(&key, &mut link).expect("the file verifies");
    assert_eq!(statement.exit_code, 0);
    assert_eq!(statement.output, b"55\n");

    // The same file in memory; then one byte more, and one byte less.
    let mut file = std::fs::read(&proof).unwrap();
    assert_eq!(verify_statement_file(&key, &file).unwrap(), statement);
    file.push(0);
    assert_eq!(
        verify_statement_file(&key, &file),
        Err(FileError::Proof(VerifyError::TrailingBytes { count: 1 }))
    );
    let mut link = Link(&file[..file.len() - 2]);
    assert_eq!(
        verify_statement_stream(&key, &mut link),
        Err(FileError::Proof(VerifyError::Truncated))
    );
    std::fs::remove_dir_all(&dir).ok();
}
