//! Typed reads from a [`ProofSource`]: the elements of proof format version 2
//! ([`kestrel_core::proof`] has the layout). Every count is compared with the count the
//! parameters and the AIR imply before anything of it is read or allocated.

use kestrel_core::field::{Ext3, Felt};
use kestrel_core::merkle::Digest;
use kestrel_core::proof::DIGEST_LEN;

use crate::source::{ProofSource, SourceError};
use crate::VerifyError;

impl From<SourceError> for VerifyError {
    fn from(e: SourceError) -> VerifyError {
        match e {
            SourceError::End => VerifyError::Truncated,
            SourceError::Failed => VerifyError::Source,
        }
    }
}

/// The proof's reader.
pub(crate) struct Reader<'a> {
    src: &'a mut dyn ProofSource,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(src: &'a mut dyn ProofSource) -> Reader<'a> {
        Reader { src }
    }

    pub(crate) fn bytes<const N: usize>(&mut self) -> Result<[u8; N], VerifyError> {
        let mut b = [0u8; N];
        self.src.read_exact(&mut b)?;
        Ok(b)
    }

    pub(crate) fn u8(&mut self) -> Result<u8, VerifyError> {
        Ok(self.bytes::<1>()?[0])
    }

    pub(crate) fn u16(&mut self) -> Result<u16, VerifyError> {
        Ok(u16::from_le_bytes(self.bytes()?))
    }

    pub(crate) fn u64(&mut self) -> Result<u64, VerifyError> {
        Ok(u64::from_le_bytes(self.bytes()?))
    }

    /// A canonical field element.
    pub(crate) fn felt(&mut self) -> Result<Felt, VerifyError> {
        Felt::from_canonical(self.u64()?).ok_or(VerifyError::Decode)
    }

    pub(crate) fn ext(&mut self) -> Result<Ext3, VerifyError> {
        Ok(Ext3::new(self.felt()?, self.felt()?, self.felt()?))
    }

    pub(crate) fn digest(&mut self) -> Result<Digest, VerifyError> {
        Ok(Digest(self.bytes::<DIGEST_LEN>()?))
    }

    /// A list's count, which must be `expected`; and `expected` elements of `each` bytes
    /// must fit in what is left of the input, if the source knows.
    pub(crate) fn count(
        &mut self,
        what: &'static str,
        expected: usize,
        each: usize,
    ) -> Result<(), VerifyError> {
        let got = u32::from_le_bytes(self.bytes()?) as usize;
        if got != expected {
            return Err(VerifyError::Length {
                what,
                expected,
                got,
            });
        }
        self.fits(expected.saturating_mul(each))
    }

    /// A list's count, which must be at most `max` (the caller checks the exact value once
    /// it is known); and that many elements of `each` bytes must fit in what is left.
    pub(crate) fn count_at_most(
        &mut self,
        what: &'static str,
        max: usize,
        each: usize,
    ) -> Result<usize, VerifyError> {
        let got = u32::from_le_bytes(self.bytes()?) as usize;
        if got > max {
            return Err(VerifyError::Length {
                what,
                expected: max,
                got,
            });
        }
        self.fits(got.saturating_mul(each))?;
        Ok(got)
    }

    /// Fails unless `n` more bytes may be left (always passes when the source does not
    /// know).
    pub(crate) fn fits(&self, n: usize) -> Result<(), VerifyError> {
        match self.src.remaining() {
            Some(left) if left < n => Err(VerifyError::Truncated),
            _ => Ok(()),
        }
    }

    /// Where the next read starts, if the source can rewind there.
    pub(crate) fn position(&self) -> Option<usize> {
        self.src.position()
    }

    /// Makes the next read start at `pos` (from [`Reader::position`]).
    pub(crate) fn seek(&mut self, pos: usize) -> Result<(), VerifyError> {
        Ok(self.src.seek(pos)?)
    }

    /// Succeeds only at the end of the input.
    pub(crate) fn end(&mut self) -> Result<(), VerifyError> {
        let mut b = [0u8; 1];
        match self.src.read_exact(&mut b) {
            Err(SourceError::End) => Ok(()),
            Err(SourceError::Failed) => Err(VerifyError::Source),
            Ok(()) => Err(VerifyError::TrailingBytes {
                count: 1 + self.src.remaining().unwrap_or(0),
            }),
        }
    }
}
