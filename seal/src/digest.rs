//! SHA-256 as gapscore writes it: lowercase hex of bytes ([`sha256_hex`]) or of a stream
//! ([`FileHasher`]), and a hash value read from any of its three published spellings into one
//! canonical form ([`canonical_sha256`]).

use sha2::{Digest, Sha256};

/// Lowercase hex SHA-256 of some bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// Lowercase hex of some bytes (a digest).
fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(char::from(DIGITS[usize::from(b >> 4)]));
        s.push(char::from(DIGITS[usize::from(b & 15)]));
    }
    s
}

/// A streaming SHA-256, for hashing files without reading them whole.
#[derive(Debug, Clone, Default)]
pub struct FileHasher(Sha256);

impl FileHasher {
    /// A new hasher.
    pub fn new() -> Self {
        FileHasher(Sha256::new())
    }

    /// Adds bytes.
    pub fn update(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }

    /// The lowercase hex digest.
    pub fn finish(self) -> String {
        hex(&self.0.finalize())
    }
}

/// Why a hash text was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "invalid sealed hash `{0}` (expected 64 hex digits, as `sha256:<hex>`, bare `<hex>` or `<hex>  -`)"
)]
pub struct HashFormatError(pub String);

/// Reads a SHA-256 hash written as `sha256:<hex>` (Dark Factory, the spec's example), bare
/// `<hex>` or `<hex>  -` (the output of `shasum`, Terminal Stampede's `.seal-hash`), with any
/// letter case and trailing newline, and returns the canonical `sha256:<lowercase hex>`.
pub fn canonical_sha256(text: &str) -> Result<String, HashFormatError> {
    let t = text.trim();
    let t = t.strip_suffix('-').map_or(t, str::trim_end);
    let hex = match t.get(..7) {
        Some(p) if p.eq_ignore_ascii_case("sha256:") => &t[7..],
        _ => t,
    };
    if hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        Ok(format!("sha256:{}", hex.to_ascii_lowercase()))
    } else {
        Err(HashFormatError(text.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEX: &str = "abcfa6a9f8d2b7d1e4a0cdc1c8e4df9b7a7c1f0d0e1d2c3b4a5968778695a4b3";

    #[test]
    fn accepts_all_three_forms() {
        let want = format!("sha256:{HEX}");
        for form in [
            HEX.to_owned(),
            format!("sha256:{HEX}"),
            format!("SHA256:{}", HEX.to_uppercase()),
            format!("{HEX}  -\n"),
            format!("{HEX}  -"),
        ] {
            assert_eq!(
                canonical_sha256(&form).as_deref(),
                Ok(want.as_str()),
                "{form:?}"
            );
        }
    }

    #[test]
    fn rejects_placeholders() {
        for bad in [
            "sha256:a1b2c3d4...",
            "",
            "sha256:",
            &HEX[1..],
            &format!("{HEX}0"),
        ] {
            assert!(canonical_sha256(bad).is_err(), "{bad}");
        }
    }
}
