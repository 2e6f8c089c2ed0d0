//! A list that is usually empty, for a record kept per task: one word while empty (a `Vec` is
//! three), read as a slice.

use std::fmt;
use std::ops::Deref;

/// Empty without allocating; its items live in one boxed `Vec` once there are any.
pub struct Rare<T>(Option<Box<Items<T>>>);

struct Items<T>(Vec<T>);

impl<T> Rare<T> {
    pub const fn new() -> Self {
        Rare(None)
    }

    pub fn push(&mut self, item: T) {
        self.0
            .get_or_insert_with(|| Box::new(Items(Vec::new())))
            .0
            .push(item);
    }
}

impl<T: Clone + Default> Rare<T> {
    /// Sets item `i`, first growing the list with default items to reach it.
    pub fn set(&mut self, i: usize, item: T) {
        let items = &mut self.0.get_or_insert_with(|| Box::new(Items(Vec::new()))).0;
        if items.len() <= i {
            items.resize(i + 1, T::default());
        }
        items[i] = item;
    }
}

impl<T> Default for Rare<T> {
    fn default() -> Self {
        Rare::new()
    }
}

impl<T> Deref for Rare<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        match &self.0 {
            Some(items) => &items.0,
            None => &[],
        }
    }
}

impl<'a, T> IntoIterator for &'a Rare<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<T> From<Vec<T>> for Rare<T> {
    /// No allocation is kept for an empty `Vec`.
    fn from(items: Vec<T>) -> Self {
        if items.is_empty() {
            Rare(None)
        } else {
            Rare(Some(Box::new(Items(items))))
        }
    }
}

impl<T> FromIterator<T> for Rare<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        Rare::from(iter.into_iter().collect::<Vec<T>>())
    }
}

impl<T> Extend<T> for Rare<T> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        for item in iter {
            self.push(item);
        }
    }
}

impl<T: Clone> Clone for Rare<T> {
    fn clone(&self) -> Self {
        Rare::from(self.to_vec())
    }
}

impl<T: fmt::Debug> fmt::Debug for Rare<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: PartialEq> PartialEq for Rare<T> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl<T: Eq> Eq for Rare<T> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_word_and_no_allocation_while_empty() {
        assert_eq!(
            std::mem::size_of::<Rare<u64>>(),
            std::mem::size_of::<usize>()
        );
        let empty: Rare<u32> = Rare::new();
        assert!(empty.is_empty());
        assert_eq!(empty.len(), 0);
        assert!(empty.0.is_none());
        let collected: Rare<u32> = std::iter::empty().collect();
        assert!(collected.0.is_none());
        assert!(Rare::<u32>::from(Vec::new()).0.is_none());
        assert_eq!(format!("{empty:?}"), "[]");
    }

    #[test]
    fn set_grows_the_list_with_defaults_to_reach_the_item() {
        let mut r: Rare<Option<u32>> = Rare::new();
        r.set(2, Some(7));
        assert_eq!(&r[..], &[None, None, Some(7)]);
        r.set(0, Some(1));
        r.set(2, Some(8));
        assert_eq!(&r[..], &[Some(1), None, Some(8)]);
    }

    #[test]
    fn keeps_every_item_in_order() {
        let mut r = Rare::new();
        for i in 0..10_000u32 {
            r.push(i);
        }
        assert_eq!(r.len(), 10_000);
        assert!(r.iter().copied().eq(0..10_000));
        assert_eq!(r[9_999], 9_999);
        assert_eq!(&r[..3], &[0, 1, 2]);
        let mut seen = 0;
        for (k, &i) in (&r).into_iter().enumerate() {
            assert_eq!(k as u32, i);
            seen += 1;
        }
        assert_eq!(seen, 10_000);
        assert_eq!(r.clone(), r);
    }

    #[test]
    fn from_a_vec_and_an_iterator() {
        let r: Rare<String> = vec!["a".to_string(), String::new()].into();
        assert_eq!(r.len(), 2);
        assert_eq!(r[1], "");
        assert_eq!(format!("{r:?}"), "[\"a\", \"\"]");
        let mut c: Rare<u8> = (1..=3).collect();
        assert_eq!(&*c, &[1, 2, 3]);
        c.extend([4, 5]);
        assert_eq!(&*c, &[1, 2, 3, 4, 5]);
        let mut e: Rare<u8> = Rare::default();
        e.extend([]);
        assert!(e.0.is_none());
    }
}
