//! Caller-supplied binding maps: a runtime's own [`BindingMap`] held as a shareable trait object
//! ([`Bindings::Custom`]), and [`FnBindings`], which makes a closure one.
//!
//! Contract:
//! - The translator asks the caller's map exactly as it asks the built-in ones: once per
//!   declared range and once per UAV counter range (the `assign_bindings` pass), never for the
//!   class-linkage block, whose binding the caller gives in `Options::class_linkage` (it is
//!   checked against the map's answers). [`Bindings::resolve`] leaves a custom map as it is.
//! - An error the map returns fails the translation as [`crate::Error::Binding`] with the
//!   [`BindingError`] unchanged (its range) and the byte offset of the declaration asked about.
//! - Two [`Bindings::Custom`] values are equal when they hold the same map object (pointer
//!   equality of the [`Arc`]): a map has no other identity the crate could compare.

use std::fmt;
use std::sync::Arc;

use super::{BindingError, BindingMap, BindingTarget, Bindings, RegisterRange};

/// A runtime's binding map, shareable between threads and translations.
pub type SharedBindingMap = Arc<dyn BindingMap + Send + Sync>;

/// A closure as a [`BindingMap`]: `FnBindings(|range| ...)` answers each range the translator
/// asks about (what a C API callback wraps).
#[derive(Clone, Copy)]
pub struct FnBindings<F>(pub F);

impl<F> BindingMap for FnBindings<F>
where
    F: Fn(&RegisterRange) -> Result<BindingTarget, BindingError>,
{
    fn map(&self, range: &RegisterRange) -> Result<BindingTarget, BindingError> {
        (self.0)(range)
    }
}

impl<F> fmt::Debug for FnBindings<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("FnBindings(..)")
    }
}

impl Bindings {
    /// The caller's own map: `Bindings::custom(my_map)` (any [`BindingMap`] that can be sent
    /// and shared between threads).
    pub fn custom(map: impl BindingMap + Send + Sync + 'static) -> Bindings {
        Bindings::Custom(Arc::new(map))
    }

    /// A map that asks `f` about each range: `Bindings::from_fn(|range| ...)`.
    pub fn from_fn<F>(f: F) -> Bindings
    where
        F: Fn(&RegisterRange) -> Result<BindingTarget, BindingError> + Send + Sync + 'static,
    {
        Bindings::custom(FnBindings(f))
    }
}

/// The address of the map an [`Arc`] holds, without its vtable (two `Arc`s of one object can
/// carry different vtable pointers).
pub(super) fn map_address(map: &SharedBindingMap) -> *const () {
    Arc::as_ptr(map).cast::<()>()
}
