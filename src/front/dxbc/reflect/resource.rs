//! Declared resources: their kind (what the declaration says) and the registers they occupy.

use std::fmt;

use super::{ResourceDimension, ReturnType, SamplerMode, UavFlags};

/// One declared constant buffer, SRV, UAV or sampler.
#[derive(Clone, Debug, PartialEq)]
pub struct Resource {
    /// What it is.
    pub kind: ResourceKind,
    /// The registers it occupies.
    pub range: Range,
    /// Its name from `RDEF`, when the container has one and a binding matches. An element of
    /// an SM5.0 array binding is named `name[i]`.
    pub name: Option<String>,
    /// Byte offset of the declaration.
    pub offset: u32,
}

impl Resource {
    /// The register class.
    pub fn class(&self) -> ResourceClass {
        self.kind.class()
    }
}

/// The four register classes a resource binds to (D3D12's descriptor range types).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ResourceClass {
    /// Constant buffers (`cb#`, HLSL `b#`).
    ConstantBuffer,
    /// Shader resource views (`t#`).
    ShaderResource,
    /// Unordered access views (`u#`).
    UnorderedAccess,
    /// Samplers (`s#`).
    Sampler,
}

impl ResourceClass {
    /// The register prefix fxc uses in declarations (`cb`, `t`, `u`, `s`); upper case in SM5.1.
    pub fn prefix(self, sm51: bool) -> &'static str {
        match (self, sm51) {
            (ResourceClass::ConstantBuffer, false) => "cb",
            (ResourceClass::ShaderResource, false) => "t",
            (ResourceClass::UnorderedAccess, false) => "u",
            (ResourceClass::Sampler, false) => "s",
            (ResourceClass::ConstantBuffer, true) => "CB",
            (ResourceClass::ShaderResource, true) => "T",
            (ResourceClass::UnorderedAccess, true) => "U",
            (ResourceClass::Sampler, true) => "S",
        }
    }

    /// A short lower-case name: `cbv`, `srv`, `uav`, `sampler`.
    pub fn name(self) -> &'static str {
        match self {
            ResourceClass::ConstantBuffer => "cbv",
            ResourceClass::ShaderResource => "srv",
            ResourceClass::UnorderedAccess => "uav",
            ResourceClass::Sampler => "sampler",
        }
    }
}

/// The kind of a declared resource, with what its declaration says about it.
#[derive(Clone, Debug, PartialEq)]
pub enum ResourceKind {
    /// `dcl_constantbuffer`.
    ConstantBuffer {
        /// Size in 16-byte vectors.
        size: u32,
        /// `dynamicIndexed` (else `immediateIndexed`).
        dynamic_indexed: bool,
    },
    /// `dcl_resource_*`: a typed buffer or texture SRV.
    TypedSrv {
        /// Buffer or texture dimension.
        dimension: ResourceDimension,
        /// Return type of each of the four components.
        return_types: [ReturnType; 4],
        /// Samples per pixel of a multisampled texture (0 = unknown until bound).
        sample_count: Option<u32>,
    },
    /// `dcl_resource_raw`: a byte-address buffer SRV.
    RawSrv,
    /// `dcl_resource_structured`.
    StructuredSrv {
        /// Bytes per element.
        stride: u32,
    },
    /// `dcl_uav_typed_*`.
    TypedUav {
        /// Buffer or texture dimension.
        dimension: ResourceDimension,
        /// Return type of each of the four components.
        return_types: [ReturnType; 4],
        /// Coherence and ordering flags.
        flags: UavFlags,
    },
    /// `dcl_uav_raw`.
    RawUav {
        /// Coherence and ordering flags.
        flags: UavFlags,
    },
    /// `dcl_uav_structured`.
    StructuredUav {
        /// Bytes per element.
        stride: u32,
        /// Coherence, ordering and counter flags.
        flags: UavFlags,
    },
    /// `dcl_sampler`.
    Sampler {
        /// Default, comparison or mono.
        mode: SamplerMode,
    },
}

impl ResourceKind {
    /// The register class.
    pub fn class(&self) -> ResourceClass {
        match self {
            ResourceKind::ConstantBuffer { .. } => ResourceClass::ConstantBuffer,
            ResourceKind::TypedSrv { .. }
            | ResourceKind::RawSrv
            | ResourceKind::StructuredSrv { .. } => ResourceClass::ShaderResource,
            ResourceKind::TypedUav { .. }
            | ResourceKind::RawUav { .. }
            | ResourceKind::StructuredUav { .. } => ResourceClass::UnorderedAccess,
            ResourceKind::Sampler { .. } => ResourceClass::Sampler,
        }
    }
}

impl fmt::Display for ResourceKind {
    /// `constant buffer, 4 vec4s, immediate indexed`, `texture2d (float,float,float,float)`,
    /// `structured uav, stride 16, counter`, `sampler mode_default`, ...
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let types = |t: &[ReturnType; 4]| {
            let names: Vec<String> = t.iter().map(ToString::to_string).collect();
            format!("({})", names.join(","))
        };
        let flags = |f: &mut fmt::Formatter<'_>, flags: &UavFlags| {
            for (set, name) in [
                (flags.globally_coherent, "globally coherent"),
                (flags.rasterizer_ordered, "rasterizer ordered"),
                (flags.counter, "counter"),
            ] {
                if set {
                    write!(f, ", {name}")?;
                }
            }
            Ok(())
        };
        match self {
            ResourceKind::ConstantBuffer {
                size,
                dynamic_indexed,
            } => {
                let access = if *dynamic_indexed {
                    "dynamic"
                } else {
                    "immediate"
                };
                let plural = if *size == 1 { "" } else { "s" };
                write!(f, "constant buffer, {size} vec4{plural}, {access} indexed")
            }
            ResourceKind::TypedSrv {
                dimension,
                return_types,
                sample_count,
            } => {
                write!(f, "{dimension}")?;
                if let Some(n) = sample_count {
                    write!(f, "({n})")?;
                }
                write!(f, " {}", types(return_types))
            }
            ResourceKind::RawSrv => f.write_str("raw buffer"),
            ResourceKind::StructuredSrv { stride } => {
                write!(f, "structured buffer, stride {stride}")
            }
            ResourceKind::TypedUav {
                dimension,
                return_types,
                flags: uav,
            } => {
                write!(f, "uav {dimension} {}", types(return_types))?;
                flags(f, uav)
            }
            ResourceKind::RawUav { flags: uav } => {
                f.write_str("raw uav")?;
                flags(f, uav)
            }
            ResourceKind::StructuredUav { stride, flags: uav } => {
                write!(f, "structured uav, stride {stride}")?;
                flags(f, uav)
            }
            ResourceKind::Sampler { mode } => write!(f, "sampler {mode}"),
        }
    }
}

/// The registers a resource declaration covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Range {
    /// The index the program names the resource by: the range ID in SM5.1 (`T1` in `T1[4:*]`),
    /// the register before (equal to `lower_bound`).
    pub id: u32,
    /// Register space (0 before SM5.1).
    pub space: u32,
    /// First register.
    pub lower_bound: u32,
    /// Number of registers; `None` for an unbounded SM5.1 range (`[4:*]`).
    pub count: Option<u32>,
}

impl Range {
    /// Last register, or `None` when unbounded.
    pub fn upper_bound(&self) -> Option<u32> {
        self.count
            .map(|n| self.lower_bound.saturating_add(n.saturating_sub(1)))
    }

    /// True for an unbounded SM5.1 range.
    pub fn is_unbounded(&self) -> bool {
        self.count.is_none()
    }

    /// True when `register` lies in the range.
    pub fn contains(&self, register: u32) -> bool {
        register >= self.lower_bound && self.upper_bound().map_or(true, |u| register <= u)
    }

    /// The register or range as fxc declares it: `t3` before SM5.1, `T1[4:*]` in SM5.1 (the
    /// space is not included).
    pub fn display(&self, class: ResourceClass, sm51: bool) -> String {
        let prefix = class.prefix(sm51);
        if !sm51 {
            return format!("{prefix}{}", self.lower_bound);
        }
        let upper = self
            .upper_bound()
            .map_or_else(|| "*".to_string(), |u| u.to_string());
        format!("{prefix}{}[{}:{upper}]", self.id, self.lower_bound)
    }
}
