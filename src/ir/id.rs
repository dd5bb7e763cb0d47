//! Typed indices into a [`Module`](super::Module)'s tables.
//!
//! Each id is the position of an entry in one table and is only meaningful for that table:
//! a [`ResourceId`] indexes [`Module::resources`](super::Module::resources), never
//! [`Module::samplers`](super::Module::samplers). They are 32-bit, so a
//! [`Reg`](super::Reg) keeps its size. An id does not prove its entry exists:
//! [`validate`](super::validate) checks that every id in a module is in range.

macro_rules! ids {
    ($($(#[$doc:meta])* $name:ident;)*) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(u32);

        impl $name {
            /// The id of position `index`.
            #[inline]
            pub const fn new(index: u32) -> $name {
                $name(index)
            }

            /// The position, for indexing the table.
            #[inline]
            pub const fn index(self) -> usize {
                self.0 as usize
            }

            /// The position as the 32-bit number it is stored as.
            #[inline]
            pub const fn get(self) -> u32 {
                self.0
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                self.0.fmt(f)
            }
        }
    )*};
}

ids! {
    /// A position in [`Module::cbuffers`](super::Module::cbuffers).
    CbId;
    /// A position in [`Module::resources`](super::Module::resources) (SRVs and UAVs).
    ResourceId;
    /// A position in [`Module::samplers`](super::Module::samplers).
    SamplerId;
    /// A position in [`Module::tgsm`](super::Module::tgsm).
    TgsmId;
    /// A position in [`Module::indexable_temps`](super::Module::indexable_temps).
    IndexableId;
    /// A position in [`Module::functions`](super::Module::functions); 0 is the entry point.
    FunctionId;
}
