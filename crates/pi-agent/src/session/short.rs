//! Short text held without an allocation of its own: an entry's id, its
//! parent's id and its type are a few bytes each (`a1b2c3d4`, `message`),
//! and a long session has a hundred thousand of each; held as separate
//! strings they cost more than the entries' tree itself.

use std::fmt;

/// The longest text held inline.
const INLINE: usize = 22;

/// Text held inline when it is short, boxed otherwise.
#[derive(Clone, PartialEq, Eq)]
pub(crate) enum ShortText {
    /// Up to [`INLINE`] bytes.
    Inline {
        /// How many of `bytes` are the text.
        len: u8,
        /// The text, then zeros.
        bytes: [u8; INLINE],
    },
    /// Longer text.
    Boxed(Box<str>),
}

impl ShortText {
    /// `s`, inline when it fits.
    pub(crate) fn new(s: &str) -> ShortText {
        match u8::try_from(s.len()) {
            Ok(len) if s.len() <= INLINE => {
                let mut bytes = [0u8; INLINE];
                bytes[..s.len()].copy_from_slice(s.as_bytes());
                ShortText::Inline { len, bytes }
            }
            _ => ShortText::Boxed(s.into()),
        }
    }

    /// The text.
    pub(crate) fn as_str(&self) -> &str {
        match self {
            // Always whole characters: the bytes were copied from a `str`.
            ShortText::Inline { len, bytes } => std::str::from_utf8(&bytes[..usize::from(*len)]).unwrap_or_default(),
            ShortText::Boxed(s) => s,
        }
    }
}

impl Default for ShortText {
    fn default() -> ShortText {
        ShortText::new("")
    }
}

impl fmt::Debug for ShortText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_is_inline_and_long_text_boxed() {
        let id = ShortText::new("a1b2c3d4");
        assert!(matches!(id, ShortText::Inline { .. }));
        assert_eq!(id.as_str(), "a1b2c3d4");
        let kind = ShortText::new("thinking_level_change");
        assert_eq!(kind.as_str(), "thinking_level_change");
        let long = ShortText::new("0195f3a2-7c1e-7b3a-9f00-123456789abc");
        assert!(matches!(long, ShortText::Boxed(_)));
        assert_eq!(long.as_str(), "0195f3a2-7c1e-7b3a-9f00-123456789abc");
        assert_eq!(ShortText::new("héllo ✓").as_str(), "héllo ✓");
        assert_eq!(ShortText::default().as_str(), "");
        assert_eq!(std::mem::size_of::<ShortText>(), 24);
        assert_eq!(std::mem::size_of::<Option<ShortText>>(), 24);
    }
}
