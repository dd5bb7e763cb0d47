//! `raw_enum!`: a `u32`-backed enumeration of a chunk field, with an `Unknown(u32)` fallback (so
//! that parsing never fails on a value this crate does not know) and one spelling per value.

/// Defines `pub enum $name { variants..., Unknown(u32) }` with `from_raw` and `raw`: the part
/// every enumerated field shares; [`raw_enum!`] and the reflection's `token_enum!` add the
/// spellings.
macro_rules! raw_enum_base {
    (
        $(#[$meta:meta])* $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $value:literal, )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $name {
            $( $(#[$vmeta])* $variant, )*
            /// A value this crate does not know, kept as found.
            Unknown(u32),
        }

        impl $name {
            /// The enumeration value for the raw number `value`.
            pub fn from_raw(value: u32) -> Self {
                match value {
                    $( $value => Self::$variant, )*
                    other => Self::Unknown(other),
                }
            }

            /// The raw number as stored.
            pub fn raw(self) -> u32 {
                match self {
                    $( Self::$variant => $value, )*
                    Self::Unknown(other) => other,
                }
            }
        }
    };
}

/// Defines `pub enum $name { variants..., Unknown(u32) }` with `from_raw`, `raw` and a name
/// method called `$name_fn` returning the given spelling:
///
/// ```text
/// raw_enum! {
///     names: fxc_name, "The short name fxc prints in its listings, if the value is known.";
///     /// Component types.
///     ComponentType { Uint32 = 1 => "uint", Float32 = 3 => "float", }
/// }
/// ```
macro_rules! raw_enum {
    (
        names: $name_fn:ident, $name_doc:literal;
        $(#[$meta:meta])* $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $value:literal => $text:literal, )*
        }
    ) => {
        $crate::front::dxbc::raw_enum::raw_enum_base! {
            $(#[$meta])* $name {
                $( $(#[$vmeta])* $variant = $value, )*
            }
        }

        impl $name {
            #[doc = $name_doc]
            pub fn $name_fn(self) -> Option<&'static str> {
                match self {
                    $( Self::$variant => Some($text), )*
                    Self::Unknown(_) => None,
                }
            }
        }
    };
}

pub(crate) use raw_enum;
pub(crate) use raw_enum_base;
