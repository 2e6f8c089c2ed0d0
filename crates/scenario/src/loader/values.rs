//! Values every part reads alike: a whole number with a floor, and a message (its `text` never
//! empty, its `data` dropped when empty).

use crate::file::DataMap;
use crate::yaml::Seg;
use engine::scenario::*;

use super::{Child, Loader, Place};

impl Loader<'_> {
    /// A whole number at `at` that must be at least `min`, or a problem naming `what`.
    pub(super) fn at_least(&mut self, at: Vec<Seg>, what: &str, n: i64, min: i64) -> Option<u64> {
        if n >= min {
            u64::try_from(n).ok()
        } else {
            self.problem(at, format!("{what} must be at least {min}, not {n}"));
            None
        }
    }

    pub(super) fn non_empty_text(&mut self, at: impl Place, text: &str) {
        if text.is_empty() {
            self.problem(at.path(), "`text` must not be empty");
        }
    }

    pub(super) fn message(
        &mut self,
        at: &[Seg],
        text: String,
        data: Option<Box<DataMap>>,
    ) -> MessageSpec {
        self.non_empty_text(Child(at, "text"), &text);
        MessageSpec::new(
            Text::plain(text),
            data.filter(|d| !d.is_empty()).map(|d| *d),
        )
    }
}
