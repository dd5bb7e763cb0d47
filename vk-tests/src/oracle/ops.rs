//! What each non-control-flow instruction does: arithmetic (through [`super::alu`]), buffer and
//! TGSM loads and stores, `bufinfo`, atomics and UAV counters.
//!
//! Contract: [`Machine::execute`] either performs the instruction exactly as the D3D11.3
//! functional specification describes, or returns [`Fault::Unsupported`] naming it.

use dxbc2spv::front::dxbc::{Instruction, Opcode};

use super::alu::{self, fin, fout};
use super::exec::{Machine, Target, Thread};
use super::memory::atomic_apply;
use super::program::{mask, swizzle, DeclKind};
use super::Fault;

/// The start of a buffer or TGSM access and, for structured ones, (index in range, offset,
/// stride).
struct Access {
    base: u64,
    structure: Option<(bool, u64, u64)>,
}

impl Access {
    /// Component `c` lies inside its structure (always, for raw accesses).
    fn ok(&self, c: u64) -> bool {
        match self.structure {
            None => true,
            Some((inside, offset, stride)) => inside && offset + 4 * c + 4 <= stride,
        }
    }
}

fn per_lane(f: impl Fn(usize) -> u32) -> [u32; 4] {
    [f(0), f(1), f(2), f(3)]
}

impl Machine<'_, '_> {
    /// Executes one instruction that is not control flow.
    pub fn execute(&mut self, t: &mut Thread, inst: &Instruction<'_>) -> Result<(), Fault> {
        let name = inst.opcode.name();
        let ops = inst.operands();
        let sat = inst.token.saturate();
        let s = |m: &Self, t: &Thread, k: usize, float: bool| m.src(t, ops.get(k), float);
        // Float results get `_sat`; everything else is written as computed.
        let put_f = |m: &Self, t: &mut Thread, k: usize, v: [u32; 4]| {
            let v = if sat { v.map(alu::saturate) } else { v };
            m.dst(t, ops.get(k), v)
        };
        match inst.opcode {
            Opcode::Mov => {
                let float = ops.get(1).is_some_and(|o| o.modifier != Default::default());
                let mut v = s(self, t, 1, float)?;
                if float {
                    v = v.map(|x| fout(fin(x)));
                }
                put_f(self, t, 0, v)
            }
            Opcode::Movc => {
                let (c, a, b) = (
                    s(self, t, 1, false)?,
                    s(self, t, 2, true)?,
                    s(self, t, 3, true)?,
                );
                put_f(
                    self,
                    t,
                    0,
                    per_lane(|i| if c[i] != 0 { a[i] } else { b[i] }),
                )
            }
            Opcode::Swapc => {
                let (c, a, b) = (
                    s(self, t, 2, false)?,
                    s(self, t, 3, true)?,
                    s(self, t, 4, true)?,
                );
                let d0 = per_lane(|i| if c[i] != 0 { b[i] } else { a[i] });
                let d1 = per_lane(|i| if c[i] != 0 { a[i] } else { b[i] });
                self.dst(t, ops.first(), d0)?;
                self.dst(t, ops.get(1), d1)
            }
            Opcode::Add
            | Opcode::Mul
            | Opcode::Div
            | Opcode::Min
            | Opcode::Max
            | Opcode::Eq
            | Opcode::Ne
            | Opcode::Lt
            | Opcode::Ge => {
                let (a, b) = (s(self, t, 1, true)?, s(self, t, 2, true)?);
                let v = per_lane(|i| alu::float_binary(name, fin(a[i]), fin(b[i])).unwrap_or(0));
                if matches!(
                    inst.opcode,
                    Opcode::Eq | Opcode::Ne | Opcode::Lt | Opcode::Ge
                ) {
                    self.dst(t, ops.first(), v)
                } else {
                    put_f(self, t, 0, v)
                }
            }
            Opcode::Mad => {
                let (a, b, c) = (
                    s(self, t, 1, true)?,
                    s(self, t, 2, true)?,
                    s(self, t, 3, true)?,
                );
                let v = per_lane(|i| {
                    let p = alu::ftz(fin(a[i]) * fin(b[i]));
                    fout(p + fin(c[i]))
                });
                put_f(self, t, 0, v)
            }
            Opcode::Dp2 | Opcode::Dp3 | Opcode::Dp4 => {
                let n = match inst.opcode {
                    Opcode::Dp2 => 2,
                    Opcode::Dp3 => 3,
                    _ => 4,
                };
                let (a, b) = (s(self, t, 1, true)?, s(self, t, 2, true)?);
                let mut sum = 0.0f32;
                for i in 0..n {
                    let p = alu::ftz(fin(a[i]) * fin(b[i]));
                    sum = if i == 0 { p } else { alu::ftz(sum + p) };
                }
                put_f(self, t, 0, [fout(sum); 4])
            }
            Opcode::Frc
            | Opcode::RoundNe
            | Opcode::RoundNi
            | Opcode::RoundPi
            | Opcode::RoundZ
            | Opcode::Rcp
            | Opcode::Rsq
            | Opcode::Sqrt
            | Opcode::Exp
            | Opcode::Log => {
                let a = s(self, t, 1, true)?;
                let v = per_lane(|i| fout(alu::float_unary(name, fin(a[i])).unwrap_or(0.0)));
                put_f(self, t, 0, v)
            }
            Opcode::Sincos => {
                let a = s(self, t, 2, true)?;
                let sin = per_lane(|i| fout((f64::from(fin(a[i]))).sin() as f32));
                let cos = per_lane(|i| fout((f64::from(fin(a[i]))).cos() as f32));
                put_f(self, t, 0, sin)?;
                put_f(self, t, 1, cos)
            }
            Opcode::Ftoi | Opcode::Ftou | Opcode::F32tof16 => {
                let a = s(self, t, 1, true)?;
                let v = per_lane(|i| match inst.opcode {
                    Opcode::Ftoi => alu::ftoi(fin(a[i])),
                    Opcode::Ftou => alu::ftou(fin(a[i])),
                    _ => alu::f32tof16(a[i]),
                });
                self.dst(t, ops.first(), v)
            }
            Opcode::Itof | Opcode::Utof | Opcode::F16tof32 => {
                let a = s(self, t, 1, false)?;
                let v = per_lane(|i| alu::int_unary(name, a[i]).unwrap_or(0));
                put_f(self, t, 0, v)
            }
            Opcode::Not
            | Opcode::Ineg
            | Opcode::Countbits
            | Opcode::Bfrev
            | Opcode::FirstbitHi
            | Opcode::FirstbitLo
            | Opcode::FirstbitShi => {
                let a = s(self, t, 1, false)?;
                let v = per_lane(|i| alu::int_unary(name, a[i]).unwrap_or(0));
                self.dst(t, ops.first(), v)
            }
            Opcode::Iadd
            | Opcode::And
            | Opcode::Or
            | Opcode::Xor
            | Opcode::Ishl
            | Opcode::Ishr
            | Opcode::Ushr
            | Opcode::Imin
            | Opcode::Imax
            | Opcode::Umin
            | Opcode::Umax
            | Opcode::Ieq
            | Opcode::Ine
            | Opcode::Ilt
            | Opcode::Ige
            | Opcode::Ult
            | Opcode::Uge => {
                let (a, b) = (s(self, t, 1, false)?, s(self, t, 2, false)?);
                let v = per_lane(|i| alu::int_binary(name, a[i], b[i]).unwrap_or(0));
                self.dst(t, ops.first(), v)
            }
            Opcode::Imad | Opcode::Umad => {
                let (a, b, c) = (
                    s(self, t, 1, false)?,
                    s(self, t, 2, false)?,
                    s(self, t, 3, false)?,
                );
                let v = per_lane(|i| a[i].wrapping_mul(b[i]).wrapping_add(c[i]));
                self.dst(t, ops.first(), v)
            }
            Opcode::Imul | Opcode::Umul | Opcode::Udiv | Opcode::Uaddc | Opcode::Usubb => {
                let (a, b) = (s(self, t, 2, false)?, s(self, t, 3, false)?);
                let pair = |i: usize| -> (u32, u32) {
                    let (x, y) = (a[i], b[i]);
                    match inst.opcode {
                        Opcode::Imul => {
                            let p = i64::from(x as i32) * i64::from(y as i32);
                            ((p >> 32) as u32, p as u32)
                        }
                        Opcode::Umul => {
                            let p = u64::from(x) * u64::from(y);
                            ((p >> 32) as u32, p as u32)
                        }
                        Opcode::Udiv => match (x.checked_div(y), x.checked_rem(y)) {
                            (Some(q), Some(r)) => (q, r),
                            _ => (u32::MAX, u32::MAX),
                        },
                        Opcode::Uaddc => {
                            let (v, c) = x.overflowing_add(y);
                            (v, u32::from(c))
                        }
                        _ => {
                            let (v, c) = x.overflowing_sub(y);
                            (v, u32::from(c))
                        }
                    }
                };
                let first = per_lane(|i| pair(i).0);
                let second = per_lane(|i| pair(i).1);
                self.dst(t, ops.first(), first)?;
                self.dst(t, ops.get(1), second)
            }
            Opcode::Ubfe | Opcode::Ibfe => {
                let (w, o, x) = (
                    s(self, t, 1, false)?,
                    s(self, t, 2, false)?,
                    s(self, t, 3, false)?,
                );
                let v = per_lane(|i| {
                    if inst.opcode == Opcode::Ubfe {
                        alu::ubfe(w[i], o[i], x[i])
                    } else {
                        alu::ibfe(w[i], o[i], x[i])
                    }
                });
                self.dst(t, ops.first(), v)
            }
            Opcode::Bfi => {
                let (w, o, x, b) = (
                    s(self, t, 1, false)?,
                    s(self, t, 2, false)?,
                    s(self, t, 3, false)?,
                    s(self, t, 4, false)?,
                );
                self.dst(
                    t,
                    ops.first(),
                    per_lane(|i| alu::bfi(w[i], o[i], x[i], b[i])),
                )
            }
            Opcode::Msad => {
                let (r, x, a) = (
                    s(self, t, 1, false)?,
                    s(self, t, 2, false)?,
                    s(self, t, 3, false)?,
                );
                self.dst(t, ops.first(), per_lane(|i| alu::msad(r[i], x[i], a[i])))
            }
            Opcode::Ld => match self.texture_of(t, inst)? {
                Some(i) => self.texture_ld(t, inst, i),
                None => self.load(t, inst),
            },
            Opcode::Resinfo => match self.texture_of(t, inst)? {
                Some(i) => self.texture_resinfo(t, inst, i),
                None => Err(Fault::Unsupported("resinfo of this resource".into())),
            },
            Opcode::LdRaw | Opcode::LdStructured | Opcode::LdUavTyped => self.load(t, inst),
            Opcode::StoreRaw | Opcode::StoreStructured | Opcode::StoreUavTyped => {
                self.store(t, inst)
            }
            Opcode::Bufinfo => {
                let n = match self.target(t, ops.get(1))? {
                    Target::Bound(i, kind) => {
                        let r = &self.resources[i];
                        match kind {
                            DeclKind::Raw => r.view_size as u32,
                            DeclKind::Structured(stride) if stride > 0 => {
                                (r.view_size / stride as usize) as u32
                            }
                            DeclKind::TypedBuffer => r.typed_count(),
                            _ => return Err(Fault::Unsupported("bufinfo of this view".into())),
                        }
                    }
                    Target::Unbound(_) => 0,
                    Target::Tgsm(..) => return Err(Fault::Invalid("bufinfo of TGSM".into())),
                };
                // "All components in dest receive the integer number of elements."
                self.dst(t, ops.first(), [n; 4])
            }
            _ if inst.opcode.name().contains("atomic") => self.atomic(t, inst),
            _ => {
                if self.execute_double(t, inst)? {
                    Ok(())
                } else {
                    Err(Fault::Unsupported(name.to_owned()))
                }
            }
        }
    }

    /// Where an access starts and which of its components are in bounds of their structure.
    fn address(
        &self,
        kind: DeclKind,
        addr: [u32; 4],
        size: usize,
        structured_offset: Option<u32>,
    ) -> Result<Access, Fault> {
        // D3D leaves byte addresses and structure offsets that are not multiples of 4
        // undefined.
        let unaligned =
            || Fault::Unsupported("address not a multiple of 4 (undefined in D3D)".into());
        match kind {
            DeclKind::Raw if !addr[0].is_multiple_of(4) => Err(unaligned()),
            DeclKind::Raw => Ok(Access {
                base: u64::from(addr[0]),
                structure: None,
            }),
            DeclKind::Structured(stride) => {
                let (index, offset) = match structured_offset {
                    Some(o) => (addr[0], o),
                    None => (addr[0], addr[1]),
                };
                let count = if stride == 0 {
                    0
                } else {
                    (size / stride as usize) as u64
                };
                if !offset.is_multiple_of(4) {
                    return Err(unaligned());
                }
                let stride = u64::from(stride);
                let offset = u64::from(offset);
                Ok(Access {
                    base: u64::from(index) * stride + offset,
                    structure: Some((u64::from(index) < count, offset, stride)),
                })
            }
            _ => Err(Fault::Unsupported("this resource kind here".into())),
        }
    }

    fn load(&mut self, t: &mut Thread, inst: &Instruction<'_>) -> Result<(), Fault> {
        let ops = inst.operands();
        let res_k = ops.len().saturating_sub(1);
        let target = self.target(t, ops.get(res_k))?;
        let sw = ops
            .get(res_k)
            .map(|o| swizzle(o.components))
            .unwrap_or([0, 1, 2, 3]);
        let addr = self.src(t, ops.get(1), false)?;
        let offset = match inst.opcode {
            Opcode::LdStructured => Some(self.src(t, ops.get(2), false)?[0]),
            _ => None,
        };
        let words: [u32; 4] = match target {
            Target::Unbound(_) => [0; 4],
            Target::Bound(i, DeclKind::TypedBuffer) => self.resources[i].typed_load(addr[0])?,
            Target::Bound(i, kind) => {
                let r = &self.resources[i];
                let acc = self.address(kind, addr, r.view_size, offset)?;
                per_lane(|c| {
                    let c = c as u64;
                    if acc.ok(c) {
                        r.word(acc.base + 4 * c)
                    } else {
                        0
                    }
                })
            }
            Target::Tgsm(g, kind) => {
                let size = self.tgsm.get(&g).map(|m| m.bytes.len()).unwrap_or(0);
                let acc = self.address(kind, addr, size, offset)?;
                let mem = self
                    .tgsm
                    .get(&g)
                    .ok_or_else(|| Fault::Invalid("TGSM".into()))?;
                let mut v = [0; 4];
                for (c, slot) in v.iter_mut().enumerate() {
                    if sw.contains(&c) {
                        if !acc.ok(c as u64) {
                            return Err(Fault::Unsupported("out-of-bounds TGSM access".into()));
                        }
                        *slot = mem.word(acc.base + 4 * c as u64)?;
                    }
                }
                v
            }
        };
        // Only the components the destination writes are read.
        let m = ops.first().map(|o| mask(o.components)).unwrap_or(0xf);
        let v = per_lane(|c| if m & (1 << c) != 0 { words[sw[c]] } else { 0 });
        self.dst(t, ops.first(), v)
    }

    fn store(&mut self, t: &mut Thread, inst: &Instruction<'_>) -> Result<(), Fault> {
        let ops = inst.operands();
        let target = self.target(t, ops.first())?;
        let m = ops.first().map(|o| mask(o.components)).unwrap_or(0xf);
        let addr = self.src(t, ops.get(1), false)?;
        let (offset, value_k) = match inst.opcode {
            Opcode::StoreStructured => (Some(self.src(t, ops.get(2), false)?[0]), 3),
            _ => (None, 2),
        };
        let value = self.src(t, ops.get(value_k), false)?;
        match target {
            Target::Unbound(_) => {}
            Target::Bound(i, DeclKind::TypedBuffer) => {
                self.resources[i].typed_store(addr[0], value)?
            }
            Target::Bound(i, kind) => {
                let size = self.resources[i].view_size;
                let acc = self.address(kind, addr, size, offset)?;
                let r = &mut self.resources[i];
                for c in 0..4u64 {
                    if m & (1 << c) != 0 && acc.ok(c) {
                        r.set_word(acc.base + 4 * c, value[c as usize]);
                    }
                }
            }
            Target::Tgsm(g, kind) => {
                let size = self.tgsm.get(&g).map(|m| m.bytes.len()).unwrap_or(0);
                let acc = self.address(kind, addr, size, offset)?;
                let mem = self
                    .tgsm
                    .get_mut(&g)
                    .ok_or_else(|| Fault::Invalid("TGSM".into()))?;
                for c in 0..4u64 {
                    if m & (1 << c) != 0 {
                        if !acc.ok(c) {
                            return Err(Fault::Unsupported("out-of-bounds TGSM access".into()));
                        }
                        mem.set_word(acc.base + 4 * c, value[c as usize])?;
                    }
                }
            }
        }
        Ok(())
    }

    fn atomic(&mut self, t: &mut Thread, inst: &Instruction<'_>) -> Result<(), Fault> {
        let ops = inst.operands();
        let name = inst.opcode.name();
        let imm = name.starts_with("imm_");
        let op = name
            .trim_start_matches("imm_")
            .trim_start_matches("atomic_");
        let res_k = usize::from(imm);
        let target = self.target(t, ops.get(res_k))?;
        if matches!(op, "alloc" | "consume") {
            let Target::Bound(i, _) = target else {
                return Err(Fault::Unsupported("UAV counter of an unbound UAV".into()));
            };
            let counter = self.resources[i]
                .counter
                .as_mut()
                .ok_or_else(|| Fault::Unsupported("UAV counter the case does not give".into()))?;
            let old = *counter;
            let result = if op == "alloc" {
                *counter = old.wrapping_add(1);
                old
            } else {
                *counter = old.wrapping_sub(1);
                *counter
            };
            return self.dst(t, ops.first(), [result; 4]);
        }
        let addr = self.src(t, ops.get(res_k + 1), false)?;
        let (compare, value) = if matches!(op, "cmp_exch" | "cmp_store") {
            (
                self.src(t, ops.get(res_k + 2), false)?[0],
                self.src(t, ops.get(res_k + 3), false)?[0],
            )
        } else {
            (0, self.src(t, ops.get(res_k + 2), false)?[0])
        };
        let apply = |old: u32| {
            atomic_apply(op, old, value, compare).ok_or_else(|| Fault::Unsupported(name.to_owned()))
        };
        let old = match target {
            Target::Unbound(_) => 0,
            Target::Bound(i, kind) => {
                let r = &self.resources[i];
                let (at, ok) = match kind {
                    DeclKind::TypedBuffer => {
                        let f = r.format.map(|f| f.size).unwrap_or(0);
                        if f != 4 {
                            return Err(Fault::Unsupported("atomic on this typed format".into()));
                        }
                        (u64::from(addr[0]) * 4, addr[0] < r.typed_count())
                    }
                    _ => {
                        let acc = self.address(kind, addr, r.view_size, None)?;
                        (acc.base, acc.ok(0))
                    }
                };
                let r = &mut self.resources[i];
                if ok && r.in_bounds(at) {
                    let old = r.word(at);
                    r.set_word(at, apply(old)?);
                    old
                } else {
                    0
                }
            }
            Target::Tgsm(g, kind) => {
                let size = self.tgsm.get(&g).map(|m| m.bytes.len()).unwrap_or(0);
                let acc = self.address(kind, addr, size, None)?;
                let at = acc.base;
                if !acc.ok(0) {
                    return Err(Fault::Unsupported("out-of-bounds TGSM atomic".into()));
                }
                let mem = self
                    .tgsm
                    .get_mut(&g)
                    .ok_or_else(|| Fault::Invalid("TGSM".into()))?;
                let old = mem.word(at)?;
                mem.set_word(at, apply(old)?)?;
                old
            }
        };
        if imm {
            self.dst(t, ops.first(), [old; 4])?;
        }
        Ok(())
    }
}
