//! Values a task holds that are usually borrowed from the scenario and sometimes its own: two
//! words each, where a `Cow` is three (a large run keeps a few per task).

use std::borrow::Cow;
use std::fmt;

use crate::symbols::Sym;

/// A value usually borrowed from the scenario and sometimes a task's own. Two words, where a
/// `Cow` is three: the owned value sits behind one more pointer, and a borrowed one (most of
/// them) costs nothing more.
pub enum Shared<'s, T: ?Sized> {
    Borrowed(&'s T),
    Owned(Box<Box<T>>),
}

/// A message's text: borrowed from the scenario (a step's or a script's), or rendered and owned.
pub type MessageText<'s> = Shared<'s, str>;

/// A task's scopes: a caller's or an agent's list, borrowed, or a narrowed one of its own.
pub type Scopes<'s> = Shared<'s, [Sym]>;

impl<'s, T: ?Sized + ToOwned> Shared<'s, T> {
    /// As a `Cow`, borrowing for as long as the scenario when it is the scenario's own.
    pub fn to_cow(&self) -> Cow<'s, T> {
        match self {
            Shared::Borrowed(s) => Cow::Borrowed(s),
            Shared::Owned(s) => Cow::Owned((**s).to_owned()),
        }
    }
}

impl<'s, T: ?Sized + ToOwned> From<Cow<'s, T>> for Shared<'s, T>
where
    T::Owned: Into<Box<T>>,
{
    fn from(value: Cow<'s, T>) -> Self {
        match value {
            Cow::Borrowed(s) => Shared::Borrowed(s),
            Cow::Owned(s) => Shared::Owned(Box::new(s.into())),
        }
    }
}

impl<T: ?Sized> std::ops::Deref for Shared<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        match self {
            Shared::Borrowed(s) => s,
            Shared::Owned(s) => s,
        }
    }
}

impl<T: ?Sized> Clone for Shared<'_, T>
where
    Box<T>: Clone,
{
    fn clone(&self) -> Self {
        match self {
            Shared::Borrowed(s) => Shared::Borrowed(s),
            Shared::Owned(s) => Shared::Owned(s.clone()),
        }
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for Shared<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl AsRef<str> for MessageText<'_> {
    fn as_ref(&self) -> &str {
        self
    }
}

impl fmt::Display for MessageText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self)
    }
}

impl PartialEq<str> for MessageText<'_> {
    fn eq(&self, other: &str) -> bool {
        **self == *other
    }
}

impl PartialEq<&str> for MessageText<'_> {
    fn eq(&self, other: &&str) -> bool {
        **self == **other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_text_reads_as_the_text_it_holds() {
        let scenario = String::from("from the scenario");
        let borrowed = MessageText::from(Cow::Borrowed(scenario.as_str()));
        let owned = MessageText::from(Cow::<str>::Owned("rendered".to_string()));
        assert!(matches!(borrowed, MessageText::Borrowed(_)));
        assert!(matches!(owned, MessageText::Owned(_)));
        assert_eq!(&*borrowed, "from the scenario");
        assert_eq!(owned, "rendered");
        assert_eq!(
            format!("{owned} {borrowed:?}"),
            "rendered \"from the scenario\""
        );
        assert!(matches!(
            borrowed.to_cow(),
            Cow::Borrowed("from the scenario")
        ));
        assert!(matches!(owned.to_cow(), Cow::Owned(s) if s == "rendered"));
    }

    #[test]
    fn scopes_read_as_the_list_they_hold() {
        let list = [3, 1, 2];
        let borrowed = Scopes::from(Cow::Borrowed(&list[..]));
        let owned = Scopes::from(Cow::<[Sym]>::Owned(vec![1, 2]));
        assert!(matches!(borrowed, Scopes::Borrowed(_)));
        assert!(matches!(owned, Scopes::Owned(_)));
        assert_eq!(&*borrowed, &[3, 1, 2]);
        assert_eq!(&*owned, &[1, 2]);
        assert_eq!(std::mem::size_of::<Scopes>(), 16);
    }
}
