//! One reusable GPU context: adapter, device with the adapter's own limits, and the compute
//! pipelines built on it, once each, keyed by a typed [`KernelId`]. Beside it the pieces every
//! kernel object pools: a [`ParamsArena`] for the uniforms of many dispatches, a [`Reusable`]
//! buffer that grows only when a call needs more, and one readback path ([`Readback`],
//! [`GpuContext::map_and_read`]).
//!
//! Tests: tests/faults/backend.rs (no adapter, software adapters), tests/engine/foundation.rs.

use super::kernel::{Access, KernelId};
use crate::error::{Error, Result};
use serde::Serialize;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// Facts about the adapter in use, for `info` and for benchmark reports.
#[derive(Debug, Clone, Serialize)]
pub struct AdapterReport {
    /// The adapter's name, as the driver gives it.
    pub name: String,
    /// The graphics API wgpu drives it through (`vulkan`, `metal`, `dx12`, `gl`).
    pub backend: String,
    /// wgpu's device type: `DiscreteGpu`, `IntegratedGpu`, `VirtualGpu`, `Cpu` or `Other`.
    pub device_type: String,
    /// The driver's name.
    pub driver: String,
    /// The driver's version text.
    pub driver_info: String,
    /// Whether the adapter runs on the CPU (lavapipe, llvmpipe, WARP).
    pub software: bool,
    /// The largest storage binding, in bytes: the tiles are sized to fit it.
    pub max_storage_buffer_binding_size: u64,
    /// The largest buffer, in bytes.
    pub max_buffer_size: u64,
    /// The most workgroups one dispatch may have along one dimension.
    pub max_compute_workgroups_per_dimension: u32,
    /// The most invocations one workgroup may have.
    pub max_compute_invocations_per_workgroup: u32,
    /// The workgroup memory one workgroup may use, in bytes.
    pub max_compute_workgroup_storage_size: u32,
    /// The smallest and largest subgroup, where the device has subgroup operations (the
    /// automaton's register kernel needs them); null without.
    pub subgroup_sizes: Option<[u32; 2]>,
}

/// A compute pipeline and the layout of its bind group 0: binding 0 the params uniform at a
/// dynamic offset, bindings 1, 2, … the kernel's storage buffers.
#[derive(Debug, Clone)]
pub struct Pipeline {
    /// The compiled pipeline.
    pub pipeline: wgpu::ComputePipeline,
    /// The layout of its bind group 0.
    pub layout: wgpu::BindGroupLayout,
}

/// Shader modules (one per WGSL file, shared by the pipelines specialised from it) and
/// pipelines (one per kernel id).
#[derive(Default)]
struct Cache {
    modules: HashMap<&'static str, wgpu::ShaderModule>,
    pipelines: HashMap<KernelId, Pipeline>,
}

/// A device and queue plus the pipelines built on them. Build one per device and share it
/// (`Arc`); the kernel objects (`PGridGpu`, `NimPassGpu`, `CaGpu`) hold it.
pub struct GpuContext {
    /// The device the kernels run on.
    pub device: wgpu::Device,
    /// Its queue.
    pub queue: wgpu::Queue,
    /// What the adapter says of itself.
    pub info: wgpu::AdapterInfo,
    /// The limits the device was opened with: the adapter's own, not wgpu's defaults.
    pub limits: wgpu::Limits,
    cache: Mutex<Cache>,
}

pub(super) static SHARED: OnceLock<std::result::Result<Arc<GpuContext>, String>> = OnceLock::new();

impl GpuContext {
    /// A process-wide context, created on first use: a convenience for the command line. The
    /// error ([`Error::NoAdapter`]) says why there is none.
    pub fn shared() -> Result<Arc<GpuContext>> {
        SHARED
            .get_or_init(|| {
                GpuContext::new().map(Arc::new).map_err(|e| match e {
                    Error::NoAdapter(why) => why,
                    other => other.to_string(),
                })
            })
            .clone()
            .map_err(Error::NoAdapter)
    }

    /// Find an adapter and open a device with the adapter's own limits.
    pub fn new() -> Result<GpuContext> {
        let instance =
            wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
        let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::HighPerformance,
            force_fallback_adapter: false,
            compatible_surface: None,
            apply_limit_buckets: false,
        }))
        .map_err(|e| {
            Error::NoAdapter(format!(
                "no GPU adapter found ({e}); install a Vulkan driver (e.g. apt-get install mesa-vulkan-drivers libvulkan1)"
            ))
        })?;
        let info = adapter.get_info();
        let limits = adapter.limits();
        // Subgroups where the adapter has them: the register kernel of the automaton shuffles.
        let features = adapter.features() & wgpu::Features::SUBGROUP;
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("chompute"),
            required_features: features,
            required_limits: limits.clone(),
            ..Default::default()
        }))
        .map_err(|e| {
            Error::NoAdapter(format!("cannot open the GPU device '{}': {e}", info.name))
        })?;
        Ok(GpuContext::from_device(device, queue, info, limits))
    }

    /// A context on a device the caller opened (with `limits` the limits it was opened with).
    pub fn from_device(
        device: wgpu::Device,
        queue: wgpu::Queue,
        info: wgpu::AdapterInfo,
        limits: wgpu::Limits,
    ) -> GpuContext {
        GpuContext {
            device,
            queue,
            info,
            limits,
            cache: Mutex::new(Cache::default()),
        }
    }

    /// A CPU (software) adapter such as lavapipe or llvmpipe.
    pub fn is_software(&self) -> bool {
        self.info.device_type == wgpu::DeviceType::Cpu
    }

    /// Whether the device was opened with subgroup operations (wgpu's SUBGROUP feature).
    pub fn has_subgroups(&self) -> bool {
        self.device.features().contains(wgpu::Features::SUBGROUP)
    }

    /// The smallest and largest subgroup the device may run, where it has subgroups.
    pub fn subgroup_sizes(&self) -> Option<(u32, u32)> {
        self.has_subgroups()
            .then_some((self.info.subgroup_min_size, self.info.subgroup_max_size))
    }

    /// The adapter and its limits, for `info` and benchmark reports.
    pub fn report(&self) -> AdapterReport {
        AdapterReport {
            name: self.info.name.clone(),
            backend: format!("{:?}", self.info.backend).to_lowercase(),
            device_type: format!("{:?}", self.info.device_type),
            driver: self.info.driver.clone(),
            driver_info: self.info.driver_info.clone(),
            software: self.is_software(),
            max_storage_buffer_binding_size: self.limits.max_storage_buffer_binding_size,
            max_buffer_size: self.limits.max_buffer_size,
            max_compute_workgroups_per_dimension: self.limits.max_compute_workgroups_per_dimension,
            max_compute_invocations_per_workgroup: self
                .limits
                .max_compute_invocations_per_workgroup,
            max_compute_workgroup_storage_size: self.limits.max_compute_workgroup_storage_size,
            subgroup_sizes: self.subgroup_sizes().map(|(a, b)| [a, b]),
        }
    }

    /// The most bytes one storage binding may hold on this device, capped at 256 MiB so that
    /// a tile's P-count (≤ 2^31 bits) fits the kernels' u32 counters.
    pub fn max_binding_bytes(&self) -> u64 {
        self.limits
            .max_storage_buffer_binding_size
            .min(self.limits.max_buffer_size)
            .min(256 << 20)
    }

    /// The pipeline of kernel `id`, built on first use (its module compiled once per WGSL file,
    /// its overrides set from the id) and cached. Shader errors are caught by an error scope.
    pub fn pipeline(&self, id: KernelId) -> Result<Pipeline> {
        let mut cache = self
            .cache
            .lock()
            .map_err(|_| Error::Gpu("the pipeline cache is poisoned".into()))?;
        if let Some(p) = cache.pipelines.get(&id) {
            return Ok(p.clone());
        }
        let kernel = id.kernel();
        let constants = id.constants();
        let pipeline = self.checked(|| {
            let module = cache
                .modules
                .entry(kernel.file)
                .or_insert_with(|| {
                    self.device
                        .create_shader_module(wgpu::ShaderModuleDescriptor {
                            label: Some(kernel.file),
                            source: wgpu::ShaderSource::Wgsl(kernel.source.into()),
                        })
                })
                .clone();
            let mut entries = vec![wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::COMPUTE,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: true,
                    min_binding_size: wgpu::BufferSize::new(kernel.params_bytes),
                },
                count: None,
            }];
            entries.extend(kernel.storage.iter().enumerate().map(|(k, access)| {
                wgpu::BindGroupLayoutEntry {
                    binding: k as u32 + 1,
                    visibility: wgpu::ShaderStages::COMPUTE,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Storage {
                            read_only: *access == Access::Read,
                        },
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    count: None,
                }
            }));
            let layout = self
                .device
                .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                    label: Some(kernel.entry),
                    entries: &entries,
                });
            let pipeline_layout =
                self.device
                    .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                        label: Some(kernel.entry),
                        bind_group_layouts: &[Some(&layout)],
                        immediate_size: 0,
                    });
            let pipeline = self
                .device
                .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some(kernel.entry),
                    layout: Some(&pipeline_layout),
                    module: &module,
                    entry_point: Some(kernel.entry),
                    compilation_options: wgpu::PipelineCompilationOptions {
                        constants: &constants,
                        ..Default::default()
                    },
                    cache: None,
                });
            Pipeline { pipeline, layout }
        })?;
        cache.pipelines.insert(id, pipeline.clone());
        Ok(pipeline)
    }

    /// The bind group of a kernel: binding 0 its params in `params` (selected per dispatch by
    /// a dynamic offset), bindings 1, 2, … `buffers` in order.
    pub fn bind_group(
        &self,
        label: &str,
        pipeline: &Pipeline,
        params: &ParamsArena,
        buffers: &[wgpu::BindingResource<'_>],
    ) -> wgpu::BindGroup {
        let mut entries = vec![wgpu::BindGroupEntry {
            binding: 0,
            resource: params.binding(),
        }];
        entries.extend(
            buffers
                .iter()
                .enumerate()
                .map(|(k, r)| wgpu::BindGroupEntry {
                    binding: k as u32 + 1,
                    resource: r.clone(),
                }),
        );
        self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(label),
            layout: &pipeline.layout,
            entries: &entries,
        })
    }

    /// Run `f` inside validation and out-of-memory error scopes, turning a captured error
    /// into [`Error::Gpu`] instead of a panic.
    pub fn checked<T>(&self, f: impl FnOnce() -> T) -> Result<T> {
        let oom = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let validation = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let value = f();
        let v = pollster::block_on(validation.pop());
        let o = pollster::block_on(oom.pop());
        match v.or(o) {
            Some(e) => Err(Error::Gpu(e.to_string())),
            None => Ok(value),
        }
    }

    /// A buffer of `bytes` bytes, its creation checked.
    pub fn buffer(
        &self,
        label: &str,
        bytes: u64,
        usage: wgpu::BufferUsages,
    ) -> Result<wgpu::Buffer> {
        self.checked(|| {
            self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: bytes,
                usage,
                mapped_at_creation: false,
            })
        })
    }

    /// Block until `submission` (or, with `None`, all submitted work) is done.
    pub fn wait(&self, submission: Option<wgpu::SubmissionIndex>) -> Result<()> {
        self.device
            .poll(wgpu::PollType::Wait {
                submission_index: submission,
                timeout: None,
            })
            .map_err(|e| Error::Gpu(format!("poll failed: {e}")))?;
        Ok(())
    }

    /// The one readback path: map the first `bytes` of a MAP_READ buffer once `submission` (the
    /// one that filled it; `None` for all submitted work) is done, hand them to `read`, unmap.
    pub fn map_and_read<T>(
        &self,
        staging: &wgpu::Buffer,
        bytes: u64,
        submission: Option<wgpu::SubmissionIndex>,
        read: impl FnOnce(&[u8]) -> T,
    ) -> Result<T> {
        let (tx, rx) = std::sync::mpsc::channel();
        staging
            .slice(..bytes)
            .map_async(wgpu::MapMode::Read, move |r| {
                let _ = tx.send(r);
            });
        self.wait(submission)?;
        rx.recv()
            .map_err(|_| Error::Gpu("readback was dropped".into()))?
            .map_err(|e| Error::Gpu(format!("readback failed: {e}")))?;
        let value = {
            let view = staging
                .slice(..bytes)
                .get_mapped_range()
                .map_err(|e| Error::Gpu(format!("readback failed: {e}")))?;
            read(&view)
        };
        staging.unmap();
        Ok(value)
    }
}

/// The params of many dispatches in one uniform buffer, one per aligned slot, chosen per
/// dispatch by a dynamic offset: a kernel object writes its params with one
/// `queue.write_buffer` and binds them with one bind group, never a buffer per dispatch.
pub struct ParamsArena {
    buffer: wgpu::Buffer,
    params_bytes: u64,
    stride: u64,
    slots: u64,
}

impl ParamsArena {
    /// Room for `slots` params structs of `params_bytes` bytes each.
    pub fn new(ctx: &GpuContext, params_bytes: u64, slots: u64) -> Result<ParamsArena> {
        let align = (ctx.limits.min_uniform_buffer_offset_alignment as u64).max(16);
        let stride = params_bytes.max(1).next_multiple_of(align);
        let buffer = ctx.buffer(
            "params",
            stride * slots.max(1),
            wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        )?;
        Ok(ParamsArena {
            buffer,
            params_bytes,
            stride,
            slots: slots.max(1),
        })
    }

    /// How many params structs it holds.
    pub fn slots(&self) -> u64 {
        self.slots
    }

    /// The dynamic offset of slot `k`.
    pub fn offset(&self, k: u64) -> u32 {
        debug_assert!(k < self.slots);
        (k * self.stride) as u32
    }

    /// Write `params` into slots `first`, `first + 1`, … (queued before the next submission).
    pub fn write<P: bytemuck::Pod>(&self, ctx: &GpuContext, first: u64, params: &[P]) {
        debug_assert!(std::mem::size_of::<P>() as u64 <= self.params_bytes);
        debug_assert!(first + params.len() as u64 <= self.slots);
        let mut bytes = vec![0u8; params.len() * self.stride as usize];
        for (slot, p) in bytes.chunks_exact_mut(self.stride as usize).zip(params) {
            slot[..std::mem::size_of::<P>()].copy_from_slice(bytemuck::bytes_of(p));
        }
        ctx.queue
            .write_buffer(&self.buffer, first * self.stride, &bytes);
    }

    /// Binding 0 of a bind group: one params struct at the dispatch's dynamic offset.
    pub fn binding(&self) -> wgpu::BindingResource<'_> {
        wgpu::BindingResource::Buffer(wgpu::BufferBinding {
            buffer: &self.buffer,
            offset: 0,
            size: wgpu::BufferSize::new(self.params_bytes),
        })
    }
}

/// A buffer kept between calls and reallocated only when a call needs more than it holds.
pub struct Reusable {
    label: &'static str,
    usage: wgpu::BufferUsages,
    buffer: Option<wgpu::Buffer>,
}

impl Reusable {
    /// None yet; the first [`Reusable::ensure`] allocates it.
    pub fn new(label: &'static str, usage: wgpu::BufferUsages) -> Reusable {
        Reusable {
            label,
            usage,
            buffer: None,
        }
    }

    /// Make the buffer hold at least `bytes` (growing to twice its size or `bytes`, whichever
    /// is more, but not past `cap` when `bytes` fits under it). True when it was reallocated,
    /// so that bind groups holding the old buffer must be rebuilt.
    pub fn ensure(&mut self, ctx: &GpuContext, bytes: u64, cap: u64) -> Result<bool> {
        let bytes = bytes.max(4).next_multiple_of(4);
        let have = self.buffer.as_ref().map_or(0, |b| b.size());
        if have >= bytes {
            return Ok(false);
        }
        let size = (have * 2).min(cap).max(bytes);
        // Drop the old buffer before making the new one: their memory need not coexist.
        self.buffer = None;
        self.buffer = Some(ctx.buffer(self.label, size, self.usage)?);
        Ok(true)
    }

    /// The buffer (after [`Reusable::ensure`]).
    pub fn get(&self) -> Result<&wgpu::Buffer> {
        self.buffer
            .as_ref()
            .ok_or_else(|| Error::Gpu(format!("{} used before it was allocated", self.label)))
    }

    /// Free the memory; the next [`Reusable::ensure`] allocates again.
    pub fn release(&mut self) {
        self.buffer = None;
    }
}

/// Copies of device buffers back to the host through one staging buffer kept between calls.
pub struct Readback {
    staging: Mutex<Reusable>,
}

impl Default for Readback {
    fn default() -> Readback {
        Readback {
            staging: Mutex::new(Reusable::new(
                "readback",
                wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            )),
        }
    }
}

impl Readback {
    /// Copy `bytes` bytes of `src` from `offset` to the host (after all work submitted so far)
    /// and hand them to `read`.
    pub fn read<T>(
        &self,
        ctx: &GpuContext,
        src: &wgpu::Buffer,
        offset: u64,
        bytes: u64,
        read: impl FnOnce(&[u8]) -> T,
    ) -> Result<T> {
        let mut staging = self
            .staging
            .lock()
            .map_err(|_| Error::Gpu("the readback buffer is poisoned".into()))?;
        staging.ensure(ctx, bytes, ctx.limits.max_buffer_size)?;
        let buffer = staging.get()?;
        let submission = ctx.checked(|| {
            let mut enc = ctx.device.create_command_encoder(&Default::default());
            enc.copy_buffer_to_buffer(src, offset, buffer, 0, bytes);
            ctx.queue.submit([enc.finish()])
        })?;
        ctx.map_and_read(buffer, bytes, Some(submission), read)
    }

    /// Free the staging memory.
    pub fn release(&self) {
        if let Ok(mut s) = self.staging.lock() {
            s.release();
        }
    }
}

/// Record one compute pass that dispatches `pipeline` over `groups` (x, y) with `bind` as
/// group 0, its params at dynamic offset `offset`.
pub fn dispatch(
    enc: &mut wgpu::CommandEncoder,
    label: &str,
    pipeline: &Pipeline,
    bind: &wgpu::BindGroup,
    offset: u32,
    groups: (u32, u32),
) {
    dispatches(enc, label, pipeline, bind, [(offset, groups)]);
}

/// Record one dispatch of `pipeline` with `bind` for each (params offset, workgroups) of
/// `each`, in order, in one compute pass: wgpu puts the same barriers between the dispatches of
/// a pass as between passes, and a pass costs the host more than a dispatch.
pub fn dispatches(
    enc: &mut wgpu::CommandEncoder,
    label: &str,
    pipeline: &Pipeline,
    bind: &wgpu::BindGroup,
    each: impl IntoIterator<Item = (u32, (u32, u32))>,
) {
    let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
        label: Some(label),
        timestamp_writes: None,
    });
    pass.set_pipeline(&pipeline.pipeline);
    for (offset, (gx, gy)) in each {
        pass.set_bind_group(0, bind, &[offset]);
        pass.dispatch_workgroups(gx, gy, 1);
    }
}

/// Split `groups` workgroups into a 2-D dispatch within the per-dimension limit.
/// Returns (x, y) with x·y ≥ groups; kernels rebuild the linear index from x.
pub fn dispatch_2d(groups: u32, max_per_dim: u32) -> (u32, u32) {
    let x = groups.clamp(1, max_per_dim);
    (x, groups.div_ceil(x).max(1))
}
