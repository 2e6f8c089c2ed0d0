//! Paths of the values the loader reads, for locating its problems.

use crate::yaml::Seg;

/// The path at `segs`, owned.
pub(super) fn path(segs: &[Seg]) -> Vec<Seg> {
    segs.to_vec()
}

/// The path of `key` inside the value at `at`.
pub(super) fn child(at: &[Seg], key: &str) -> Vec<Seg> {
    let mut p = at.to_vec();
    p.push(Seg::from(key));
    p
}

/// Where a reference sits, made into a path only when a problem is reported there: a large file
/// resolves hundreds of thousands of references and builds a path for a handful.
pub(super) trait Place {
    fn path(self) -> Vec<Seg>;
}

impl Place for Vec<Seg> {
    fn path(self) -> Vec<Seg> {
        self
    }
}

/// [`child`], lazily.
#[derive(Clone, Copy)]
pub(super) struct Child<'a>(pub &'a [Seg], pub &'static str);

impl Place for Child<'_> {
    fn path(self) -> Vec<Seg> {
        let mut p = Vec::with_capacity(self.0.len() + 1);
        p.extend_from_slice(self.0);
        p.push(Seg::name(self.1));
        p
    }
}
