//! Which machine checks which file: `pmfarm run --shard K/N` keeps the files whose
//! shard is K (1-based); `--shard-from-env JOB_COMPLETION_INDEX/N` reads a 0-based index
//! from an environment variable (a Kubernetes Indexed Job, a CI matrix).
//!
//! A file's shard is the first 8 bytes (big-endian) of SHA-256 over its path relative
//! to the corpus root — Unicode NFC, `/` separators — modulo N. **Stability**: the shard
//! depends on nothing but that path and N, so adding, removing or changing other files
//! never moves a file to another shard, every machine computes the same split without
//! talking to the others, and the N shards partition the corpus exactly (each file in
//! exactly one). Renaming a file, or changing N, may move it.

use sha2::{Digest, Sha256};
use unicode_normalization::UnicodeNormalization;

/// One slice of a corpus: `index` in `0..count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// 0-based shard index.
    pub index: u64,
    /// Number of shards (≥ 1).
    pub count: u64,
}

/// Why a shard specification was refused.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum ShardError {
    /// Not `K/N` with integers.
    #[error("`{0}` is not K/N (two positive integers)")]
    Syntax(String),
    /// N is zero or K is outside its range.
    #[error("shard {index} is outside 1..={count}")]
    Range {
        /// K as given.
        index: u64,
        /// N as given.
        count: u64,
    },
    /// `--shard-from-env VAR/N`: the variable is unset or not an integer.
    #[error("environment variable {name}: {problem}")]
    Env {
        /// Variable name.
        name: String,
        /// What is wrong with it.
        problem: String,
    },
}

impl Shard {
    /// Parses `K/N` with K 1-based (`--shard 2/4` is the second of four).
    pub fn parse_one_based(spec: &str) -> Result<Shard, ShardError> {
        let (k, n) = split(spec)?;
        if n == 0 || k == 0 || k > n {
            return Err(ShardError::Range { index: k, count: n });
        }
        Ok(Shard { index: k - 1, count: n })
    }

    /// Parses `VAR/N` and reads the 0-based index from `VAR` through `lookup` (the
    /// process environment in the CLI): Kubernetes sets `JOB_COMPLETION_INDEX` to 0..N−1.
    pub fn from_env(spec: &str, lookup: impl Fn(&str) -> Option<String>) -> Result<Shard, ShardError> {
        let Some((name, n)) = spec.split_once('/') else { return Err(ShardError::Syntax(spec.to_string())) };
        let count: u64 = n.trim().parse().map_err(|_| ShardError::Syntax(spec.to_string()))?;
        let env = |problem: &str| ShardError::Env { name: name.to_string(), problem: problem.to_string() };
        let value = lookup(name).ok_or_else(|| env("not set"))?;
        let index: u64 = value.trim().parse().map_err(|_| env(&format!("`{value}` is not an integer")))?;
        if count == 0 || index >= count {
            return Err(ShardError::Range { index: index + 1, count });
        }
        Ok(Shard { index, count })
    }

    /// True when `rel` (path relative to the corpus root) belongs to this shard.
    pub fn contains(&self, rel: &str) -> bool {
        shard_of(rel, self.count) == self.index
    }

    /// `K/N`, 1-based, for logs and the summary.
    pub fn label(&self) -> String {
        format!("{}/{}", self.index + 1, self.count)
    }
}

/// Keeps the files of `shard` (the run's corpus root stays, so relative paths and the
/// merged outputs match an unsharded run).
pub fn filter(mut corpus: crate::enumerate::Corpus, shard: Shard) -> crate::enumerate::Corpus {
    corpus.items.retain(|i| shard.contains(&i.rel));
    corpus
}

fn split(spec: &str) -> Result<(u64, u64), ShardError> {
    let bad = || ShardError::Syntax(spec.to_string());
    let (k, n) = spec.split_once('/').ok_or_else(bad)?;
    Ok((k.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?))
}

/// The canonical key of a relative path: `\` turned into `/`, Unicode NFC.
pub fn canonical_path(rel: &str) -> String {
    rel.replace('\\', "/").nfc().collect()
}

/// 0-based shard of `rel` among `count` (count 0 is treated as 1).
pub fn shard_of(rel: &str, count: u64) -> u64 {
    let digest = Sha256::digest(canonical_path(rel).as_bytes());
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    u64::from_be_bytes(first) % count.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_one_based_and_kubernetes_forms() {
        assert_eq!(Shard::parse_one_based("1/4"), Ok(Shard { index: 0, count: 4 }));
        assert_eq!(Shard::parse_one_based("4/4"), Ok(Shard { index: 3, count: 4 }));
        assert!(Shard::parse_one_based("0/4").is_err());
        assert!(Shard::parse_one_based("5/4").is_err());
        assert!(Shard::parse_one_based("1/0").is_err());
        assert!(Shard::parse_one_based("a/4").is_err());
        let env = |v: &'static str| move |_: &str| Some(v.to_string());
        assert_eq!(Shard::from_env("JOB_COMPLETION_INDEX/4", env("0")), Ok(Shard { index: 0, count: 4 }));
        assert_eq!(Shard::from_env("JOB_COMPLETION_INDEX/4", env("3")), Ok(Shard { index: 3, count: 4 }));
        assert!(Shard::from_env("JOB_COMPLETION_INDEX/4", env("4")).is_err());
        assert!(Shard::from_env("JOB_COMPLETION_INDEX/4", |_| None).is_err());
        assert!(Shard::from_env("JOB_COMPLETION_INDEX/4", env("x")).is_err());
    }

    #[test]
    fn shard_is_sha256_prefix_of_the_nfc_path() {
        // SHA-256("a.max") starts 0x0f2f…; computed independently of this module.
        let digest = Sha256::digest(b"a.max");
        let expected = u64::from_be_bytes(digest[..8].try_into().unwrap()) % 7;
        assert_eq!(shard_of("a.max", 7), expected);
        // Decomposed "é" (e + U+0301) and precomposed "é" are the same file.
        assert_eq!(shard_of("cafe\u{301}/x.max", 1000), shard_of("caf\u{e9}/x.max", 1000));
        assert_eq!(shard_of("stuff\\x.max", 1000), shard_of("stuff/x.max", 1000));
    }

    #[test]
    fn shards_partition_and_spread() {
        let paths: Vec<String> = (0..4000).map(|i| format!("stuff/f{}/file_{i}.max", i % 13)).collect();
        let mut sizes = [0usize; 4];
        for p in &paths {
            let owners: Vec<u64> = (0..4).filter(|&k| Shard { index: k, count: 4 }.contains(p)).collect();
            assert_eq!(owners.len(), 1, "{p}");
            sizes[owners[0] as usize] += 1;
        }
        assert!(sizes.iter().all(|&s| (850..1150).contains(&s)), "{sizes:?}");
    }
}
