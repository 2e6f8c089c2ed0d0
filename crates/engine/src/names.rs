//! A list of names packed into one string: a large file defines an alias per send, and a
//! string each (24 bytes, and a heap block when longer) was 1.2 MB of a 100,000-step run where
//! the names themselves are 0.3 MB.

use std::ops::Index;

use crate::ix::ix32;

#[derive(Debug, Default, Clone)]
pub struct NameList {
    text: String,
    /// Where each name ends in `text`.
    ends: Vec<u32>,
}

impl NameList {
    pub fn with_capacity(names: usize) -> Self {
        NameList {
            text: String::new(),
            ends: Vec::with_capacity(names),
        }
    }

    pub fn push(&mut self, name: &str) {
        self.text.push_str(name);
        self.ends.push(ix32(self.text.len()));
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    pub fn get(&self, ix: usize) -> Option<&str> {
        let end = *self.ends.get(ix)? as usize;
        let start = ix.checked_sub(1).map_or(0, |p| self.ends[p] as usize);
        self.text.get(start..end)
    }

    /// Gives back the spare room the list grew into.
    pub fn shrink_to_fit(&mut self) {
        self.text.shrink_to_fit();
        self.ends.shrink_to_fit();
    }
}

impl Index<usize> for NameList {
    type Output = str;

    fn index(&self, ix: usize) -> &str {
        self.get(ix)
            .expect("a name's index is below the list's length")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_back_in_order_empty_ones_included() {
        let mut list = NameList::with_capacity(4);
        assert!(list.is_empty());
        for name in ["t1", "", "a longer name than twenty-four bytes", "é"] {
            list.push(name);
        }
        list.shrink_to_fit();
        assert_eq!(list.len(), 4);
        assert_eq!(&list[0], "t1");
        assert_eq!(&list[1], "");
        assert_eq!(&list[2], "a longer name than twenty-four bytes");
        assert_eq!(list.get(3), Some("é"));
        assert_eq!(list.get(4), None);
    }
}
