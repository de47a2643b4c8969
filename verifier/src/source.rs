//! Where the verifier reads a proof from: [`ProofSource`].

/// Why a [`ProofSource`] could not fill a buffer.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SourceError {
    /// Fewer bytes are left than were asked for: the input ended.
    End,
    /// The source itself failed (a link dropped, a flash read failed).
    Failed,
}

/// A proof's bytes, read once, in order, in small pieces (at most 256 bytes at a time).
///
/// Implemented for `&[u8]` (a proof in memory or in memory-mapped flash: the slice
/// advances past what was read). A proof arriving over a link is a user type whose
/// `read_exact` waits for the next bytes. The interface is one call that fills a buffer or
/// fails, so a C callback (`int read(void *ctx, uint8_t *buf, size_t len)`) can implement
/// it.
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
}
