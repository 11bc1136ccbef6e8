//! [`Shared`]: a value that is either `'static` or reference-counted, so that cloning it never
//! copies.
//!
//! Generated code names its commands, parameters and effects with `'static` constants; metadata
//! loaded at run time owns them. Both end up in every [`Invocation`] a call makes (its name,
//! title, effects and the names of the parameters it recorded). With [`std::borrow::Cow`] the
//! loaded case copied each of them on every call; a `Shared` loaded value is counted instead,
//! and a generated one stays a plain reference.
//!
//! [`Invocation`]: https://docs.rs/atip-runtime/latest/atip_runtime/struct.Invocation.html

use std::borrow::{Borrow, Cow};
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

/// A `T` that is either borrowed for `'static` (a generated constant) or shared through an
/// [`Arc`] (metadata loaded at run time). It dereferences to `T`; cloning copies a reference
/// or increments a count, never the value.
///
/// Equality, ordering, hashing, `Debug`, `Display` and serde are those of `T`: a `Shared` is
/// indistinguishable from the value it holds, whichever way it holds it.
///
/// ```
/// use atip_core::Shared;
///
/// let generated: Shared<str> = Shared::Static("gh_pr_create");
/// let loaded: Shared<str> = Shared::from(String::from("gh_pr_create"));
/// assert_eq!(generated, loaded);
/// assert_eq!(&*loaded.clone(), "gh_pr_create");
/// ```
pub enum Shared<T: ?Sized + 'static> {
    /// A `'static` value, as generated code has.
    Static(&'static T),
    /// A counted value, as loaded metadata has.
    Counted(Arc<T>),
}

impl<T: ?Sized> Shared<T> {
    /// The value.
    #[inline]
    pub fn get(&self) -> &T {
        match self {
            Shared::Static(value) => value,
            Shared::Counted(value) => value,
        }
    }
}

impl<T> Shared<T> {
    /// `value`, counted.
    pub fn new(value: T) -> Self {
        Shared::Counted(Arc::new(value))
    }
}

impl<T: ?Sized + ToOwned> Shared<T> {
    /// An owned copy of the value (as [`Cow::into_owned`], which always copies here: the value
    /// is never owned alone).
    pub fn into_owned(self) -> T::Owned {
        self.get().to_owned()
    }
}

impl Shared<str> {
    /// The empty string.
    pub const EMPTY: Shared<str> = Shared::Static("");

    /// The text.
    #[inline]
    pub fn as_str(&self) -> &str {
        self.get()
    }
}

impl<T: ?Sized> Clone for Shared<T> {
    #[inline]
    fn clone(&self) -> Self {
        match self {
            Shared::Static(value) => Shared::Static(value),
            Shared::Counted(value) => Shared::Counted(Arc::clone(value)),
        }
    }
}

impl<T: ?Sized> Deref for Shared<T> {
    type Target = T;

    #[inline]
    fn deref(&self) -> &T {
        self.get()
    }
}

impl<T: ?Sized> AsRef<T> for Shared<T> {
    fn as_ref(&self) -> &T {
        self.get()
    }
}

impl<T: ?Sized> Borrow<T> for Shared<T> {
    fn borrow(&self) -> &T {
        self.get()
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for Shared<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.get().fmt(f)
    }
}

impl<T: ?Sized + fmt::Display> fmt::Display for Shared<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.get().fmt(f)
    }
}

impl<T: ?Sized + PartialEq> PartialEq for Shared<T> {
    fn eq(&self, other: &Self) -> bool {
        self.get() == other.get()
    }
}

impl<T: ?Sized + Eq> Eq for Shared<T> {}

impl<T: ?Sized + PartialOrd> PartialOrd for Shared<T> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        self.get().partial_cmp(other.get())
    }
}

impl<T: ?Sized + Ord> Ord for Shared<T> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.get().cmp(other.get())
    }
}

impl<T: ?Sized + Hash> Hash for Shared<T> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.get().hash(state);
    }
}

impl PartialEq<str> for Shared<str> {
    fn eq(&self, other: &str) -> bool {
        self.get() == other
    }
}

impl PartialEq<&str> for Shared<str> {
    fn eq(&self, other: &&str) -> bool {
        self.get() == *other
    }
}

impl PartialEq<String> for Shared<str> {
    fn eq(&self, other: &String) -> bool {
        self.get() == other
    }
}

impl PartialEq<Cow<'_, str>> for Shared<str> {
    fn eq(&self, other: &Cow<'_, str>) -> bool {
        self.get() == other.as_ref()
    }
}

impl PartialEq<Shared<str>> for Cow<'_, str> {
    fn eq(&self, other: &Shared<str>) -> bool {
        self.as_ref() == other.get()
    }
}

impl PartialEq<Shared<str>> for String {
    fn eq(&self, other: &Shared<str>) -> bool {
        self.as_str() == other.get()
    }
}

impl PartialEq<Shared<str>> for str {
    fn eq(&self, other: &Shared<str>) -> bool {
        self == other.get()
    }
}

impl PartialEq<Shared<str>> for &str {
    fn eq(&self, other: &Shared<str>) -> bool {
        *self == other.get()
    }
}

impl Default for Shared<str> {
    fn default() -> Self {
        Shared::EMPTY
    }
}

impl<T: ?Sized> From<&'static T> for Shared<T> {
    fn from(value: &'static T) -> Self {
        Shared::Static(value)
    }
}

impl<T: ?Sized> From<Arc<T>> for Shared<T> {
    fn from(value: Arc<T>) -> Self {
        Shared::Counted(value)
    }
}

impl From<String> for Shared<str> {
    fn from(value: String) -> Self {
        Shared::Counted(value.into())
    }
}

impl From<Cow<'static, str>> for Shared<str> {
    /// Borrowed text stays borrowed; owned text is moved behind an [`Arc`].
    fn from(value: Cow<'static, str>) -> Self {
        match value {
            Cow::Borrowed(text) => Shared::Static(text),
            Cow::Owned(text) => text.into(),
        }
    }
}

impl From<Shared<str>> for String {
    fn from(value: Shared<str>) -> Self {
        value.get().to_owned()
    }
}

impl<T: ?Sized + Serialize> Serialize for Shared<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.get().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Shared<str> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(Shared::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn static_and_counted_values_are_the_same_value() {
        let a: Shared<str> = Shared::Static("git_commit");
        let b: Shared<str> = Shared::from(String::from("git_commit"));
        assert_eq!(a, b);
        assert_eq!(a, "git_commit");
        assert_eq!("git_commit", b);
        assert_eq!(format!("{a} {b:?}"), "git_commit \"git_commit\"");
        let set: HashSet<Shared<str>> = [a, b].into_iter().collect();
        assert_eq!(set.len(), 1);
        assert!(set.contains("git_commit"));
        let b: Shared<str> = Shared::from(String::from("b"));
        assert!(Shared::Static("a") < b);
    }

    #[test]
    fn cloning_a_counted_value_shares_it() {
        let a: Shared<str> = Shared::from(String::from("gh pr create"));
        let b = a.clone();
        assert!(std::ptr::eq(a.get(), b.get()));
        let Shared::Counted(arc) = &a else {
            panic!("an owned string is counted")
        };
        assert_eq!(Arc::strong_count(arc), 2);
    }

    #[test]
    fn cow_text_keeps_its_borrow() {
        let borrowed = Shared::from(Cow::Borrowed("x"));
        assert!(matches!(borrowed, Shared::Static("x")));
        let owned = Shared::from(Cow::<'static, str>::Owned("y".into()));
        assert!(matches!(owned, Shared::Counted(_)));
    }

    #[test]
    fn serde_is_that_of_the_value() {
        let s: Shared<str> = serde_json::from_str("\"a\\nb\"").unwrap();
        assert_eq!(s, "a\nb");
        assert_eq!(serde_json::to_string(&s).unwrap(), "\"a\\nb\"");
        let e: Shared<crate::Effects> = Shared::Static(&crate::Effects::UNKNOWN);
        assert_eq!(serde_json::to_string(&e).unwrap(), "{}");
    }
}
