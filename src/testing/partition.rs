//! Splitting a corpus across CI machines: every scenario runs in exactly one partition.

use std::path::Path;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Partition {
    /// `hash:M/N`: FNV-1a 64 of the scenario's path relative to the working directory
    /// (`/`-separated), modulo N, equals M − 1. Stable across machines and file additions.
    Hash { m: u64, n: u64 },
    /// `slice:M/N`: the scenarios at positions M − 1, M − 1 + N, … of the sorted list.
    Slice { m: u64, n: u64 },
}

impl Partition {
    pub fn parse(s: &str) -> Result<Partition, String> {
        let bad =
            || format!("`{s}` is not a partition: use hash:M/N or slice:M/N with 1 <= M <= N");
        let (kind, rest) = s.split_once(':').ok_or_else(bad)?;
        let (m, n) = rest.split_once('/').ok_or_else(bad)?;
        let (m, n): (u64, u64) = (m.parse().map_err(|_| bad())?, n.parse().map_err(|_| bad())?);
        if m < 1 || m > n {
            return Err(bad());
        }
        match kind {
            "hash" => Ok(Partition::Hash { m, n }),
            "slice" => Ok(Partition::Slice { m, n }),
            _ => Err(bad()),
        }
    }

    /// Whether the scenario at `index` of the sorted list, at `path`, belongs to this partition.
    pub fn contains(&self, index: usize, path: &Path, cwd: &Path) -> bool {
        match *self {
            Partition::Hash { m, n } => fnv1a(relative_key(path, cwd).as_bytes()) % n == m - 1,
            Partition::Slice { m, n } => index as u64 % n == m - 1,
        }
    }
}

/// The path relative to `cwd`, `/`-separated, without a leading `./`.
pub fn relative_key(path: &Path, cwd: &Path) -> String {
    let rel = path.strip_prefix(cwd).unwrap_or(path);
    let rel = rel.strip_prefix(".").unwrap_or(rel);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_scenario_is_in_exactly_one_partition() {
        let cwd = Path::new("/repo");
        let paths: Vec<String> = (0..200).map(|i| format!("scenarios/s{i}.yaml")).collect();
        for kind in ["hash", "slice"] {
            for n in 1..=5 {
                for (i, p) in paths.iter().enumerate() {
                    let count = (1..=n)
                        .filter(|m| {
                            Partition::parse(&format!("{kind}:{m}/{n}"))
                                .unwrap()
                                .contains(i, Path::new(p), cwd)
                        })
                        .count();
                    assert_eq!(count, 1, "{kind} {n} {p}");
                }
            }
        }
    }

    #[test]
    fn the_hash_ignores_how_the_path_was_spelled() {
        let cwd = Path::new("/repo");
        assert_eq!(
            relative_key(Path::new("/repo/scenarios/a.yaml"), cwd),
            "scenarios/a.yaml"
        );
        assert_eq!(
            relative_key(Path::new("./scenarios/a.yaml"), cwd),
            "scenarios/a.yaml"
        );
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    }

    #[test]
    fn bad_partitions_are_refused() {
        for s in [
            "hash:0/3",
            "hash:4/3",
            "slice:1",
            "mod:1/2",
            "hash:a/b",
            "slice:1/0",
        ] {
            assert!(Partition::parse(s).is_err(), "{s}");
        }
    }
}
