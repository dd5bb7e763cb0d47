//! The Vulkan version a translation is written for ([`Target`]), which decides the SPIR-V
//! version of the module header.

use crate::spv::Version;

/// The Vulkan version the SPIR-V is written for; it decides the SPIR-V version.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Target {
    /// Vulkan 1.0: SPIR-V 1.0.
    Vulkan1_0,
    /// Vulkan 1.1: SPIR-V 1.3 (the default).
    #[default]
    Vulkan1_1,
    /// Vulkan 1.2: SPIR-V 1.5.
    Vulkan1_2,
    /// Vulkan 1.3: SPIR-V 1.6.
    Vulkan1_3,
}

impl Target {
    /// Every target, oldest first.
    pub const ALL: [Target; 4] = [
        Target::Vulkan1_0,
        Target::Vulkan1_1,
        Target::Vulkan1_2,
        Target::Vulkan1_3,
    ];

    /// The SPIR-V version of the module header.
    pub fn spirv_version(self) -> Version {
        match self {
            Target::Vulkan1_0 => Version::V1_0,
            Target::Vulkan1_1 => Version::V1_3,
            Target::Vulkan1_2 => Version::V1_5,
            Target::Vulkan1_3 => Version::V1_6,
        }
    }

    /// The `spirv-val --target-env` spelling: `vulkan1.0` … `vulkan1.3`.
    pub fn name(self) -> &'static str {
        match self {
            Target::Vulkan1_0 => "vulkan1.0",
            Target::Vulkan1_1 => "vulkan1.1",
            Target::Vulkan1_2 => "vulkan1.2",
            Target::Vulkan1_3 => "vulkan1.3",
        }
    }

    /// Parses [`Target::name`]'s spelling.
    pub fn from_name(name: &str) -> Option<Target> {
        Target::ALL.into_iter().find(|t| t.name() == name)
    }
}
