//! Values a task holds that are usually borrowed from the scenario and sometimes its own: two
//! words each, where a `Cow` is three (a large run keeps a few per task).

use std::borrow::Cow;
use std::fmt;

use crate::engine::symbols::Sym;

/// A message's text: borrowed from the scenario (a step's or a script's), or rendered and owned.
/// Two words, where a `Cow` is three: the owned text sits behind one more pointer, and a borrowed
/// one (most of them) costs nothing more.
#[derive(Clone)]
pub enum MessageText<'s> {
    Borrowed(&'s str),
    Owned(Box<Box<str>>),
}

impl<'s> MessageText<'s> {
    /// As a `Cow`, borrowing for as long as the scenario when it is the scenario's own.
    pub fn to_cow(&self) -> Cow<'s, str> {
        match self {
            MessageText::Borrowed(s) => Cow::Borrowed(s),
            MessageText::Owned(s) => Cow::Owned(s.to_string()),
        }
    }
}

impl<'s> From<Cow<'s, str>> for MessageText<'s> {
    fn from(text: Cow<'s, str>) -> Self {
        match text {
            Cow::Borrowed(s) => MessageText::Borrowed(s),
            Cow::Owned(s) => MessageText::Owned(Box::new(s.into_boxed_str())),
        }
    }
}

impl std::ops::Deref for MessageText<'_> {
    type Target = str;

    fn deref(&self) -> &str {
        match self {
            MessageText::Borrowed(s) => s,
            MessageText::Owned(s) => s,
        }
    }
}

impl AsRef<str> for MessageText<'_> {
    fn as_ref(&self) -> &str {
        self
    }
}

impl fmt::Debug for MessageText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
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

/// A task's scopes: a caller's or an agent's list, borrowed (the common case), or a narrowed one
/// of its own. Two words, where a `Cow` is three.
#[derive(Debug, Clone)]
pub enum Scopes<'s> {
    Borrowed(&'s [Sym]),
    Owned(Box<Box<[Sym]>>),
}

impl<'s> From<Cow<'s, [Sym]>> for Scopes<'s> {
    fn from(scopes: Cow<'s, [Sym]>) -> Self {
        match scopes {
            Cow::Borrowed(s) => Scopes::Borrowed(s),
            Cow::Owned(s) => Scopes::Owned(Box::new(s.into_boxed_slice())),
        }
    }
}

impl std::ops::Deref for Scopes<'_> {
    type Target = [Sym];

    fn deref(&self) -> &[Sym] {
        match self {
            Scopes::Borrowed(s) => s,
            Scopes::Owned(s) => s,
        }
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
