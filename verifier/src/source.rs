//! Where the verifier reads a proof from: [`ProofSource`].

/// Why a [`ProofSource`] could not fill a buffer.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SourceError {
    /// Fewer bytes are left than were asked for: the input ended.
    End,
    /// The source itself failed (a link dropped, a flash read failed).
    Failed,
}

/// A proof's bytes, read in order, in small pieces (at most 256 bytes at a time).
///
/// Implemented for [`SliceSource`] (a proof in memory or in memory-mapped flash, which can
/// rewind) and for `&[u8]` (the slice advances past what was read; it cannot rewind). A
/// proof arriving over a link is a user type whose `read_exact` waits for the next bytes.
/// The interface is one call that fills a buffer or fails, so a C callback
/// (`int read(void *ctx, uint8_t *buf, size_t len)`) can implement it.
///
/// A source that can return to a position it has passed ([`ProofSource::position`],
/// [`ProofSource::seek`]) lets the verifier read the out-of-domain record twice instead of
/// holding it (about 59 KB for RV64IM), so it verifies in less heap. The second read is
/// checked to give the same bytes as the first (a source that changes them is rejected
/// with [`VerifyError::Source`](crate::VerifyError::Source)); anything else is read once.
///
/// The verifier reads exactly the proof's bytes and then asks for one more: a source that
/// holds nothing after the proof answers [`SourceError::End`]; anything else is rejected
/// as trailing bytes.
pub trait ProofSource {
    /// Fills `buf` with the next `buf.len()` bytes, or fails. After an error the verifier
    /// reads nothing more.
    ///
    /// # Errors
    /// [`SourceError::End`] when fewer than `buf.len()` bytes are left (the contents of
    /// `buf` are then unspecified), [`SourceError::Failed`] when the source fails.
    fn read_exact(&mut self, buf: &mut [u8]) -> Result<(), SourceError>;

    /// How many bytes are left, if the source knows (a slice does; a link may not). The
    /// verifier refuses a record that could not fit in what is left before reading it, and
    /// reports how many trailing bytes there were. `None` (the default) is always correct.
    fn remaining(&self) -> Option<usize> {
        None
    }

    /// Where the next read starts, in bytes from an origin of the source's choosing, if the
    /// source can [`seek`](ProofSource::seek) back there; `None` (the default) if it cannot
    /// rewind. The verifier then reads everything once.
    fn position(&self) -> Option<usize> {
        None
    }

    /// Makes the next read start at `pos`, a value [`position`](ProofSource::position)
    /// returned earlier. Called only when `position` returned `Some`.
    ///
    /// # Errors
    /// [`SourceError::Failed`] when the source cannot (the default).
    fn seek(&mut self, pos: usize) -> Result<(), SourceError> {
        let _ = pos;
        Err(SourceError::Failed)
    }
}

/// A proof in memory (or memory-mapped flash), read in place: a [`ProofSource`] that can
/// rewind, so the verifier holds less (see [`ProofSource::position`]).
#[derive(Copy, Clone, Debug)]
pub struct SliceSource<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> SliceSource<'a> {
    /// A source reading `bytes` from the start.
    pub fn new(bytes: &'a [u8]) -> SliceSource<'a> {
        SliceSource { bytes, pos: 0 }
    }

    /// The bytes not read yet.
    pub fn rest(&self) -> &'a [u8] {
        self.bytes.get(self.pos..).unwrap_or_default()
    }
}

impl ProofSource for SliceSource<'_> {
    fn read_exact(&mut self, buf: &mut [u8]) -> Result<(), SourceError> {
        let mut rest = self.rest();
        rest.read_exact(buf)?;
        self.pos += buf.len();
        Ok(())
    }

    fn remaining(&self) -> Option<usize> {
        Some(self.rest().len())
    }

    fn position(&self) -> Option<usize> {
        Some(self.pos)
    }

    fn seek(&mut self, pos: usize) -> Result<(), SourceError> {
        if pos > self.bytes.len() {
            return Err(SourceError::End);
        }
        self.pos = pos;
        Ok(())
    }
}

impl ProofSource for &[u8] {
    fn read_exact(&mut self, buf: &mut [u8]) -> Result<(), SourceError> {
        let (head, rest) = self.split_at_checked(buf.len()).ok_or(SourceError::End)?;
        buf.copy_from_slice(head);
        *self = rest;
        Ok(())
    }

    fn remaining(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<S: ProofSource + ?Sized> ProofSource for &mut S {
    fn read_exact(&mut self, buf: &mut [u8]) -> Result<(), SourceError> {
        (**self).read_exact(buf)
    }

    fn remaining(&self) -> Option<usize> {
        (**self).remaining()
    }

    fn position(&self) -> Option<usize> {
        (**self).position()
    }

    fn seek(&mut self, pos: usize) -> Result<(), SourceError> {
        (**self).seek(pos)
    }
}
