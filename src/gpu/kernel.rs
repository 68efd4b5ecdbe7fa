//! Each kernel as one unit: its WGSL file, entry point, workgroup size, storage bindings and
//! params struct. The params struct is declared once, in Rust (`kernel_params!`), and the
//! tests below check it, and everything else here, against the shader's own declarations
//! through naga's reflection, so host and shader cannot drift apart unnoticed.
//!
//! Tests: this file's unit tests; tests/engine/foundation.rs.

use crate::chocolate::automaton::BlockShape;
use crate::chomp::two_player::device::TableReads;

/// How a kernel uses one of its storage bindings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// `var<storage, read>`.
    Read,
    /// `var<storage, read_write>`.
    ReadWrite,
}

/// One field of a params struct as Rust lays it out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParamField {
    /// The field's name, the same as the WGSL member's.
    pub name: &'static str,
    /// Byte offset in the struct.
    pub offset: usize,
    /// Size in bytes.
    pub size: usize,
}

/// A kernel's `#[repr(C)]` Pod params struct (binding 0, a uniform), with its field layout.
pub trait KernelParams: bytemuck::Pod {
    /// The fields in declaration order.
    const FIELDS: &'static [ParamField];
}

/// Declare a kernel's params struct: `#[repr(C)]`, Pod, and its [`KernelParams`] layout, so
/// the layout the tests compare with the shader is the struct the host writes.
macro_rules! kernel_params {
    ($(#[$meta:meta])* $vis:vis struct $name:ident {
        $($(#[$fmeta:meta])* $fvis:vis $field:ident : $ty:ty),* $(,)?
    }) => {
        $(#[$meta])*
        #[repr(C)]
        #[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
        $vis struct $name {
            $($(#[$fmeta])* $fvis $field: $ty),*
        }

        impl $crate::gpu::kernel::KernelParams for $name {
            const FIELDS: &'static [$crate::gpu::kernel::ParamField] = &[$(
                $crate::gpu::kernel::ParamField {
                    name: stringify!($field),
                    offset: std::mem::offset_of!($name, $field),
                    size: std::mem::size_of::<$ty>(),
                }
            ),*];
        }
    };
}
pub(crate) use kernel_params;

/// What the host knows about one WGSL entry point.
#[derive(Debug)]
pub struct Kernel {
    /// The file in `shaders/`.
    pub file: &'static str,
    /// Its text (`include_str!`, validated by build.rs).
    pub source: &'static str,
    /// The `@compute` function.
    pub entry: &'static str,
    /// Its `@workgroup_size`, which the host's dispatch sizes assume.
    pub workgroup_size: [u32; 3],
    /// The params struct at binding 0.
    pub params: &'static [ParamField],
    /// Its size in bytes.
    pub params_bytes: u64,
    /// Storage bindings 1, 2, … in order.
    pub storage: &'static [Access],
    /// Module-scope `const`s whose values the host relies on, with those values.
    pub consts: &'static [(&'static str, u32)],
    /// `override`s the host sets when it builds the pipeline.
    pub overrides: &'static [&'static str],
}

impl Kernel {
    /// A kernel whose params struct is `P`; the other fields are filled in by the caller.
    pub const fn with_params<P: KernelParams>(
        file: &'static str,
        source: &'static str,
        entry: &'static str,
        workgroup_size: [u32; 3],
        storage: &'static [Access],
    ) -> Kernel {
        Kernel {
            file,
            source,
            entry,
            workgroup_size,
            params: P::FIELDS,
            params_bytes: std::mem::size_of::<P>() as u64,
            storage,
            consts: &[],
            overrides: &[],
        }
    }
}

/// The key of a pipeline: which kernel, specialised how. A new kernel is one variant here, one
/// arm in [`KernelId::kernel`] (and [`KernelId::constants`] if it has overrides) and its
/// module beside the others, which declares its [`Kernel`] and params struct; its arm in the
/// conformance test against the CPU twin (`tests/engine/foundation.rs`) is then required.
/// `docs/adding-a-kernel.md` is the recipe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KernelId {
    /// `ptest.wgsl`: the P-grid of a tile.
    PRows,
    /// `pcount.wgsl`: the set bits of a run of words.
    CountP,
    /// `nimpass.wgsl`: one level of four-heap Nim with a pass.
    NimpassLevel,
    /// `ca_step.wgsl`: one step of the automaton.
    CaStep,
    /// `ca_block.wgsl` specialised to one tile shape.
    CaBlock(BlockShape),
    /// `ca_regs.wgsl`: many steps in registers (needs subgroup operations).
    CaRegs,
    /// `block_count.wgsl`: the digit method's P-counts of a picture's blocks.
    BlockCounts,
    /// `chomp_layer.wgsl`: one volume layer of the two-player Chomp table.
    ChompLayer,
    /// `chomp_hook.wgsl` cut to this many table bindings, reading them so: one step of a
    /// square's table in the hook index.
    ChompHookStep(u8, TableReads),
    /// `chomp_hook.wgsl` cut to this many table bindings, reading them so: the bits at chosen
    /// indexes.
    ChompHookGather(u8, TableReads),
    /// `chomp_hook.wgsl` cut to this many table bindings, reading them so: the index
    /// arithmetic alone (tests).
    ChompHookProbe(u8, TableReads),
}

impl KernelId {
    /// One id of every kernel (the block kernel at its default shape, the hook kernel whole and
    /// with atomic reads: its cut and plain-read variants are made from its text and tested in
    /// tests/engine/chomp_hook.rs), for the tests.
    pub const ALL: [KernelId; 11] = [
        KernelId::PRows,
        KernelId::CountP,
        KernelId::NimpassLevel,
        KernelId::CaStep,
        KernelId::CaBlock(BlockShape {
            steps_max: 8,
            tile_rows: 13,
        }),
        KernelId::CaRegs,
        KernelId::BlockCounts,
        KernelId::ChompLayer,
        KernelId::ChompHookStep(super::chomp_hook::TABLE_BINDINGS as u8, TableReads::Atomic),
        KernelId::ChompHookGather(super::chomp_hook::TABLE_BINDINGS as u8, TableReads::Atomic),
        KernelId::ChompHookProbe(super::chomp_hook::TABLE_BINDINGS as u8, TableReads::Atomic),
    ];

    /// The kernel's file, entry point, bindings and params.
    pub fn kernel(self) -> &'static Kernel {
        match self {
            KernelId::PRows => &super::ptest::P_ROWS,
            KernelId::CountP => &super::ptest::COUNT_P,
            KernelId::NimpassLevel => &super::nimpass::NIMPASS_LEVEL,
            KernelId::CaStep => &super::ca::CA_STEP,
            KernelId::CaBlock(_) => &super::ca::CA_BLOCK,
            KernelId::CaRegs => &super::ca::CA_REGS,
            KernelId::BlockCounts => &super::block_count::BLOCK_COUNTS,
            KernelId::ChompLayer => &super::chomp::CHOMP_LAYER,
            KernelId::ChompHookStep(t, r) => super::chomp_hook::kernel(0, t, r),
            KernelId::ChompHookGather(t, r) => super::chomp_hook::kernel(1, t, r),
            KernelId::ChompHookProbe(t, r) => super::chomp_hook::kernel(2, t, r),
        }
    }

    /// The values of the kernel's overrides (pipeline-overridable constants) for this id.
    pub fn constants(self) -> Vec<(&'static str, f64)> {
        match self {
            KernelId::CaBlock(s) => vec![
                ("STEPS_MAX", s.steps_max as f64),
                ("TILE_ROWS", s.tile_rows as f64),
            ],
            _ => Vec::new(),
        }
    }
}

/// Every kernel chompute runs.
pub fn all() -> [&'static Kernel; 11] {
    KernelId::ALL.map(KernelId::kernel)
}

#[cfg(test)]
mod tests {
    use super::*;
    use naga::{AddressSpace, ResourceBinding, StorageAccess, TypeInner};

    fn parse(k: &Kernel) -> naga::Module {
        naga::front::wgsl::parse_str(k.source)
            .unwrap_or_else(|e| panic!("{}", e.emit_to_string_with_path(k.source, k.file)))
    }

    fn binding(module: &naga::Module, slot: u32) -> Option<&naga::GlobalVariable> {
        module.global_variables.iter().map(|(_, g)| g).find(|g| {
            g.binding
                == Some(ResourceBinding {
                    group: 0,
                    binding: slot,
                })
        })
    }

    /// The value of a module-scope `const` or the default of an `override` that is a u32
    /// literal.
    fn u32_literal(module: &naga::Module, init: naga::Handle<naga::Expression>) -> Option<u32> {
        match module.global_expressions[init] {
            naga::Expression::Literal(naga::Literal::U32(v)) => Some(v),
            _ => None,
        }
    }

    #[test]
    fn params_structs_match_the_shaders() {
        for k in all() {
            let module = parse(k);
            let mut layouter = naga::proc::Layouter::default();
            layouter.update(module.to_ctx()).unwrap();
            let params = binding(&module, 0).unwrap_or_else(|| panic!("{}: no binding 0", k.file));
            assert_eq!(params.space, AddressSpace::Uniform, "{}: binding 0", k.file);
            let TypeInner::Struct { members, .. } = &module.types[params.ty].inner else {
                panic!("{}: binding 0 is not a struct", k.file);
            };
            // (name, offset, size) of each member, in order.
            let wgsl: Vec<(&str, usize, usize)> = members
                .iter()
                .map(|m| {
                    let name = m.name.as_deref().unwrap_or_default();
                    (name, m.offset as usize, layouter[m.ty].size as usize)
                })
                .collect();
            let rust: Vec<(&str, usize, usize)> = k
                .params
                .iter()
                .map(|f| (f.name, f.offset, f.size))
                .collect();
            assert_eq!(
                wgsl, rust,
                "{}: params fields (WGSL left, Rust right)",
                k.file
            );
            assert_eq!(
                layouter[params.ty].size as u64, k.params_bytes,
                "{}: params size",
                k.file
            );
        }
    }

    #[test]
    fn entry_points_bindings_and_constants_match_the_host() {
        for k in all() {
            let module = parse(k);
            let entry = module
                .entry_points
                .iter()
                .find(|e| e.name == k.entry)
                .unwrap_or_else(|| panic!("{}: no entry point {}", k.file, k.entry));
            assert_eq!(entry.stage, naga::ShaderStage::Compute, "{}", k.file);
            assert_eq!(
                entry.workgroup_size, k.workgroup_size,
                "{}: workgroup size",
                k.file
            );
            for (i, want) in k.storage.iter().enumerate() {
                let slot = i as u32 + 1;
                let g = binding(&module, slot)
                    .unwrap_or_else(|| panic!("{}: no binding {slot}", k.file));
                let AddressSpace::Storage { access } = g.space else {
                    panic!("{}: binding {slot} is not storage", k.file);
                };
                let got = if access.contains(StorageAccess::STORE) {
                    Access::ReadWrite
                } else {
                    Access::Read
                };
                assert_eq!(got, *want, "{}: access of binding {slot}", k.file);
            }
            let resources = module
                .global_variables
                .iter()
                .filter(|(_, g)| g.binding.is_some())
                .count();
            assert_eq!(resources, 1 + k.storage.len(), "{}: bindings", k.file);
            for &(name, value) in k.consts {
                let c = module
                    .constants
                    .iter()
                    .map(|(_, c)| c)
                    .find(|c| c.name.as_deref() == Some(name))
                    .unwrap_or_else(|| panic!("{}: no const {name}", k.file));
                assert_eq!(
                    u32_literal(&module, c.init),
                    Some(value),
                    "{}: {name}",
                    k.file
                );
            }
            let mut overrides: Vec<&str> = module
                .overrides
                .iter()
                .filter_map(|(_, o)| o.name.as_deref())
                .collect();
            overrides.sort_unstable();
            let mut want = k.overrides.to_vec();
            want.sort_unstable();
            assert_eq!(overrides, want, "{}: overrides", k.file);
        }
        for id in KernelId::ALL {
            let mut set: Vec<&str> = id.constants().iter().map(|c| c.0).collect();
            set.sort_unstable();
            let mut want = id.kernel().overrides.to_vec();
            want.sort_unstable();
            assert_eq!(set, want, "{id:?} sets every override");
        }
    }

    #[test]
    fn every_shader_file_is_a_registered_kernel() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders");
        let mut files: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|f| f.ends_with(".wgsl"))
            .collect();
        files.sort();
        let mut known: Vec<String> = all().iter().map(|k| k.file.to_string()).collect();
        known.sort();
        known.dedup();
        assert_eq!(files, known);
        for k in all() {
            let on_disk = std::fs::read_to_string(dir.join(k.file)).unwrap();
            assert_eq!(on_disk, k.source, "{} is included from shaders/", k.file);
        }
    }

    #[test]
    fn block_kernel_defaults_are_the_shape_for_16_kib() {
        // The module's own defaults make it a complete kernel for WebGPU's minimum limits.
        let module = parse(&crate::gpu::ca::CA_BLOCK);
        let default = |name: &str| {
            let o = module
                .overrides
                .iter()
                .map(|(_, o)| o)
                .find(|o| o.name.as_deref() == Some(name))
                .unwrap();
            u32_literal(&module, o.init.unwrap()).unwrap()
        };
        let shape = crate::chocolate::automaton::BlockShape::for_workgroup_bytes(16384).unwrap();
        assert_eq!(default("STEPS_MAX"), shape.steps_max);
        assert_eq!(default("TILE_ROWS"), shape.tile_rows);
    }
}
