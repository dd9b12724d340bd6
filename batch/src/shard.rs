//! `--shard K/N`: a stable part of a batch, chosen by a hash of the repository name, so N
//! machines can each score one part and the parts never overlap or miss a repository.

use sha2::{Digest, Sha256};

use crate::BatchError;

/// Part `index` (1-based) of `count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    index: u32,
    count: u32,
}

impl Shard {
    /// Shard `index` of `count`, 1 ≤ index ≤ count.
    pub fn new(index: u32, count: u32) -> Option<Shard> {
        (count >= 1 && (1..=count).contains(&index)).then_some(Shard { index, count })
    }

    /// The 1-based index.
    pub fn index(self) -> u32 {
        self.index
    }

    /// The number of shards.
    pub fn count(self) -> u32 {
        self.count
    }

    /// True when this shard scores the repository: the first 8 bytes of SHA-256 of its name,
    /// modulo the shard count. The same on every machine and every version of gapscore.
    pub fn contains(self, name: &str) -> bool {
        let digest = Sha256::digest(name.as_bytes());
        let mut first = [0u8; 8];
        first.copy_from_slice(&digest[..8]);
        u64::from_be_bytes(first) % u64::from(self.count) == u64::from(self.index - 1)
    }
}

impl std::str::FromStr for Shard {
    type Err = BatchError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || BatchError::Shard(s.to_owned());
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let k: u32 = k.trim().parse().map_err(|_| bad())?;
        let n: u32 = n.trim().parse().map_err(|_| bad())?;
        Shard::new(k, n).ok_or_else(bad)
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_is_in_exactly_one_shard() {
        for i in 0..500 {
            let name = format!("repo-{i}");
            let n = (1..=7)
                .filter(|k| Shard::new(*k, 7).is_some_and(|s| s.contains(&name)))
                .count();
            assert_eq!(n, 1, "{name}");
        }
    }

    #[test]
    fn parses_k_of_n() {
        assert_eq!("2/8".parse::<Shard>().ok(), Shard::new(2, 8));
        for bad in ["0/3", "4/3", "1/0", "x", "1/", "/2"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }
}
