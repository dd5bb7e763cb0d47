//! The type cache: `OpType*` instructions, deduplicated by operands where SPIR-V requires or
//! allows it, fresh where a type is to carry decorations.
//!
//! SPIR-V forbids two non-aggregate, non-pointer types with the same opcode and operands (spec
//! §2.8), so those always come from the cache. Arrays and runtime arrays may be cached (plain
//! [`Module::type_array`]) or fresh ([`Module::type_array_unique`]) so that an `ArrayStride`
//! decoration stays on the one array meant to carry it; structs are always fresh. A cached id is
//! marked *shared*, and [`Module::decorate`] refuses it.

use spirv::{AccessQualifier, Capability, Dim, ImageFormat, Op, StorageClass};

use super::hash::FxHashMap;
use super::{Error, Id, Module, Version};

/// The operands of an OpTypeImage.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ImageType {
    /// The scalar type of a texel component (`float`, `int` or `uint`; `void` is not allowed in
    /// Vulkan).
    pub sampled_type: Id,
    /// The dimensionality.
    pub dim: Dim,
    /// 0: not a depth image, 1: a depth image, 2: unknown.
    pub depth: u32,
    /// Whether the image is arrayed.
    pub arrayed: bool,
    /// Whether the image is multisampled.
    pub multisampled: bool,
    /// 1: used with a sampler, 2: a storage image (0, unknown, is not allowed in Vulkan).
    pub sampled: u32,
    /// The texel format (`Unknown` for sampled images).
    pub format: ImageFormat,
    /// The access qualifier (kernels only; `None` for shaders).
    pub access: Option<AccessQualifier>,
}

/// A cached composite type: its opcode and up to two operand words (images are kept apart).
type TypeKey = (Op, u32, u32);

/// Slots of the scalar fast path: void, bool, int 8/16/32/64 unsigned then signed, float
/// 16/32/64.
const SCALAR_SLOTS: usize = 13;
const VOID_SLOT: usize = 0;
const BOOL_SLOT: usize = 1;

fn int_slot(width: u32, signed: bool) -> Option<usize> {
    let base = match width {
        8 => 2,
        16 => 3,
        32 => 4,
        64 => 5,
        _ => return None,
    };
    Some(base + 4 * usize::from(signed))
}

fn float_slot(width: u32) -> Option<usize> {
    match width {
        16 => Some(10),
        32 => Some(11),
        64 => Some(12),
        _ => None,
    }
}

#[derive(Clone, Copy, Debug)]
struct FunctionType {
    id: Id,
    ret: Id,
    first_param: usize,
    param_count: usize,
}

/// The cached types, the function types and the set of shared (cached) type ids.
#[derive(Clone, Debug, Default)]
pub(super) struct TypeCache {
    scalars: [Option<Id>; SCALAR_SLOTS],
    map: FxHashMap<TypeKey, Id>,
    images: Vec<(ImageType, Id)>,
    functions: Vec<FunctionType>,
    params: Vec<Id>,
    /// Bit `id` is set when `id` is a cached type.
    shared: Vec<u64>,
}

impl TypeCache {
    /// The bytes the cache holds allocated.
    pub(super) fn allocated_bytes(&self) -> usize {
        use std::mem::size_of;
        self.map.capacity() * (size_of::<(TypeKey, Id)>() + 1)
            + self.images.capacity() * size_of::<(ImageType, Id)>()
            + self.functions.capacity() * size_of::<FunctionType>()
            + self.params.capacity() * size_of::<Id>()
            + self.shared.capacity() * size_of::<u64>()
    }

    /// Empty, with room for `n` composite types.
    pub(super) fn with_capacity(n: usize) -> TypeCache {
        TypeCache {
            map: FxHashMap::with_capacity_and_hasher(n, Default::default()),
            ..TypeCache::default()
        }
    }

    pub(super) fn clear(&mut self) {
        self.scalars = [None; SCALAR_SLOTS];
        self.map.clear();
        self.images.clear();
        self.functions.clear();
        self.params.clear();
        self.shared.clear();
    }

    /// Whether `id` is a cached type (and so may not be decorated).
    #[inline]
    pub(super) fn is_shared(&self, id: Id) -> bool {
        let i = id.word() as usize;
        self.shared
            .get(i / 64)
            .is_some_and(|bits| bits & (1 << (i % 64)) != 0)
    }

    fn mark_shared(&mut self, id: Id) {
        let i = id.word() as usize;
        if self.shared.len() <= i / 64 {
            self.shared.resize(i / 64 + 1, 0);
        }
        if let Some(bits) = self.shared.get_mut(i / 64) {
            *bits |= 1 << (i % 64);
        }
    }

    /// The return type, first parameter index and parameter count of a function type made by
    /// `type_function` (parameter types through [`TypeCache::param_type`]).
    pub(super) fn function(&self, id: Id) -> Option<(Id, usize, usize)> {
        let f = self.functions.iter().find(|f| f.id == id)?;
        Some((f.ret, f.first_param, f.param_count))
    }

    /// The parameter type at index `i` of the parameter store.
    pub(super) fn param_type(&self, i: usize) -> Option<Id> {
        self.params.get(i).copied()
    }

    /// The scalar type cached in fast-path slot `slot`.
    #[inline]
    fn scalar(&self, slot: usize) -> Option<Id> {
        self.scalars.get(slot).copied().flatten()
    }

    /// Whether `id` is the cached `void` type.
    pub(super) fn is_void(&self, id: Id) -> bool {
        self.scalar(VOID_SLOT) == Some(id)
    }
}

impl Module {
    /// The cached type for `key`, or a new one written as `op id operands`.
    fn cached_type(&mut self, key: TypeKey, operands: &[u32]) -> Id {
        if let Some(&id) = self.types.map.get(&key) {
            return id;
        }
        let id = self.new_shared_type(key.0, operands);
        self.types.map.insert(key, id);
        id
    }

    /// The scalar type in fast-path slot `slot`, or a new one written as `op id operands`.
    #[inline]
    fn scalar_type(&mut self, slot: usize, op: Op, operands: &[u32]) -> Id {
        if let Some(id) = self.types.scalar(slot) {
            return id;
        }
        let id = self.new_shared_type(op, operands);
        if let Some(s) = self.types.scalars.get_mut(slot) {
            *s = Some(id);
        }
        id
    }

    /// Writes `op id operands` and marks `id` as shared.
    fn new_shared_type(&mut self, op: Op, operands: &[u32]) -> Id {
        let id = self.fresh_type(op, operands);
        self.types.mark_shared(id);
        id
    }

    /// A fresh (never deduplicated) type `op id operands`.
    fn fresh_type(&mut self, op: Op, operands: &[u32]) -> Id {
        let id = self.alloc_id();
        let start = self.globals.begin(op);
        self.globals.push(id.word());
        self.globals.extend(operands);
        let r = self.globals.end(start);
        self.check(r);
        id
    }

    /// OpTypeVoid.
    pub fn type_void(&mut self) -> Id {
        self.scalar_type(VOID_SLOT, Op::TypeVoid, &[])
    }

    /// OpTypeBool.
    pub fn type_bool(&mut self) -> Id {
        self.scalar_type(BOOL_SLOT, Op::TypeBool, &[])
    }

    /// OpTypeInt of `width` bits (8, 16, 32 or 64; the Int8/Int16/Int64 capability is declared
    /// as needed).
    pub fn type_int(&mut self, width: u32, signed: bool) -> Id {
        let Some(slot) = int_slot(width, signed) else {
            let what = "integer width must be 8, 16, 32 or 64";
            self.fail(Error::InvalidOperand {
                op: Op::TypeInt,
                what,
            });
            return self.alloc_id();
        };
        if let Some(id) = self.types.scalar(slot) {
            return id;
        }
        match width {
            8 => self.capability(Capability::Int8),
            16 => self.capability(Capability::Int16),
            64 => self.capability(Capability::Int64),
            _ => {}
        }
        self.scalar_type(slot, Op::TypeInt, &[width, u32::from(signed)])
    }

    /// OpTypeFloat of `width` bits (16, 32 or 64; Float16/Float64 declared as needed).
    pub fn type_float(&mut self, width: u32) -> Id {
        let Some(slot) = float_slot(width) else {
            let what = "float width must be 16, 32 or 64";
            self.fail(Error::InvalidOperand {
                op: Op::TypeFloat,
                what,
            });
            return self.alloc_id();
        };
        if let Some(id) = self.types.scalar(slot) {
            return id;
        }
        match width {
            16 => self.capability(Capability::Float16),
            64 => self.capability(Capability::Float64),
            _ => {}
        }
        self.scalar_type(slot, Op::TypeFloat, &[width])
    }

    /// `uint` (32-bit unsigned integer).
    pub fn type_u32(&mut self) -> Id {
        self.type_int(32, false)
    }

    /// `int` (32-bit signed integer).
    pub fn type_i32(&mut self) -> Id {
        self.type_int(32, true)
    }

    /// `float` (32-bit).
    pub fn type_f32(&mut self) -> Id {
        self.type_float(32)
    }

    /// OpTypeVector of `count` components (2, 3 or 4; 8 and 16 declare Vector16).
    pub fn type_vector(&mut self, component: Id, count: u32) -> Id {
        match count {
            2..=4 => {}
            8 | 16 => self.capability(Capability::Vector16),
            _ => {
                let what = "a vector has 2, 3, 4, 8 or 16 components";
                self.fail(Error::InvalidOperand {
                    op: Op::TypeVector,
                    what,
                });
            }
        }
        let key = (Op::TypeVector, component.word(), count);
        self.cached_type(key, &[component.word(), count])
    }

    /// A cached OpTypeArray of `element` with `length`, the id of an integer constant. Cannot be
    /// decorated; see [`Module::type_array_unique`].
    pub fn type_array(&mut self, element: Id, length: Id) -> Id {
        let key = (Op::TypeArray, element.word(), length.word());
        self.cached_type(key, &[element.word(), length.word()])
    }

    /// [`Module::type_array`] with a `uint` constant length.
    pub fn type_array_len(&mut self, element: Id, length: u32) -> Id {
        let length = self.constant_u32(length);
        self.type_array(element, length)
    }

    /// A fresh OpTypeArray, to carry decorations such as `ArrayStride`.
    pub fn type_array_unique(&mut self, element: Id, length: Id) -> Id {
        self.fresh_type(Op::TypeArray, &[element.word(), length.word()])
    }

    /// A cached OpTypeRuntimeArray of `element`. Cannot be decorated; see
    /// [`Module::type_runtime_array_unique`].
    pub fn type_runtime_array(&mut self, element: Id) -> Id {
        let key = (Op::TypeRuntimeArray, element.word(), 0);
        self.cached_type(key, &[element.word()])
    }

    /// A fresh OpTypeRuntimeArray, to carry `ArrayStride`.
    pub fn type_runtime_array_unique(&mut self, element: Id) -> Id {
        self.fresh_type(Op::TypeRuntimeArray, &[element.word()])
    }

    /// A fresh OpTypeStruct (structs are never deduplicated, so each may carry its own
    /// decorations).
    pub fn type_struct(&mut self, members: &[Id]) -> Id {
        let id = self.alloc_id();
        let start = self.globals.begin(Op::TypeStruct);
        self.globals.push(id.word());
        self.globals.ids(members);
        let r = self.globals.end(start);
        self.check(r);
        id
    }

    /// A cached OpTypePointer. `StorageBuffer` before SPIR-V 1.3 declares
    /// `SPV_KHR_storage_buffer_storage_class`.
    pub fn type_pointer(&mut self, storage: StorageClass, pointee: Id) -> Id {
        if storage == StorageClass::StorageBuffer && self.version < Version::V1_3 {
            self.extension("SPV_KHR_storage_buffer_storage_class");
        }
        let key = (Op::TypePointer, storage as u32, pointee.word());
        self.cached_type(key, &[storage as u32, pointee.word()])
    }

    /// A cached OpTypeFunction returning `ret` and taking `params`.
    pub fn type_function(&mut self, ret: Id, params: &[Id]) -> Id {
        let cache = &self.types;
        let found = cache.functions.iter().find(|f| {
            f.ret == ret
                && cache
                    .params
                    .get(f.first_param..f.first_param + f.param_count)
                    == Some(params)
        });
        if let Some(f) = found {
            return f.id;
        }
        let id = self.alloc_id();
        let start = self.globals.begin(Op::TypeFunction);
        self.globals.extend(&[id.word(), ret.word()]);
        self.globals.ids(params);
        let r = self.globals.end(start);
        self.check(r);
        let first_param = self.types.params.len();
        self.types.params.extend_from_slice(params);
        self.types.functions.push(FunctionType {
            id,
            ret,
            first_param,
            param_count: params.len(),
        });
        self.types.mark_shared(id);
        id
    }

    /// A cached OpTypeImage (images are few: found by a linear scan).
    pub fn type_image(&mut self, image: &ImageType) -> Id {
        let mut ops = [
            image.sampled_type.word(),
            image.dim as u32,
            image.depth,
            u32::from(image.arrayed),
            u32::from(image.multisampled),
            image.sampled,
            image.format as u32,
            0,
        ];
        let len = match image.access {
            Some(a) => {
                ops[7] = a as u32;
                8
            }
            None => 7,
        };
        if let Some((_, id)) = self.types.images.iter().find(|(i, _)| i == image) {
            return *id;
        }
        let id = self.new_shared_type(Op::TypeImage, &ops[..len]);
        self.types.images.push((*image, id));
        id
    }

    /// OpTypeSampler.
    pub fn type_sampler(&mut self) -> Id {
        self.cached_type((Op::TypeSampler, 0, 0), &[])
    }

    /// A cached OpTypeSampledImage of `image`.
    pub fn type_sampled_image(&mut self, image: Id) -> Id {
        let key = (Op::TypeSampledImage, image.word(), 0);
        self.cached_type(key, &[image.word()])
    }
}
