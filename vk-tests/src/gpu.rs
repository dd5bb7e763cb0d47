//! The Vulkan device: instance, physical-device choice, logical device, one compute queue and a
//! `gpu-allocator` memory allocator.
//!
//! Device choice, first match wins:
//! 1. the `selector` given to [`Gpu::new`], else the `DXBC2SPV_VK_DEVICE` environment variable:
//!    a case-insensitive substring of the device name (for example `llvmpipe` or `nvidia`);
//! 2. otherwise the first discrete GPU, then integrated GPU, then virtual GPU, then CPU device
//!    (lavapipe), then anything else.
//!
//! Only devices with Vulkan 1.1 or newer and a compute-capable queue family are considered.
//!
//! Features: every feature of [`crate::features`] the device supports is enabled, except the
//! opt-in ones (robustness), which [`GpuOptions::opt_in_features`] asks for.

use std::collections::BTreeSet;
use std::ffi::{c_char, CStr};
use std::fmt;
use std::mem::ManuallyDrop;
use std::sync::{Mutex, MutexGuard};

use anyhow::{anyhow, bail, Context, Result};
use ash::vk;
use gpu_allocator::vulkan::{Allocation, Allocator, AllocatorCreateDesc};
use gpu_allocator::{AllocationSizes, AllocatorDebugSettings};

use crate::features::{feature_kind, DeviceFeatures, FeatureKind};

/// Environment variable that selects the Vulkan device by a substring of its name.
pub const DEVICE_ENV: &str = "DXBC2SPV_VK_DEVICE";

/// The Vulkan API version the instance asks for (devices must support at least 1.1).
const REQUESTED_API_VERSION: u32 = vk::API_VERSION_1_3;

/// Size of the allocator's memory blocks; small, since test buffers are small.
const MEMBLOCK_SIZE: u64 = 16 << 20;

/// What the harness knows about the chosen physical device.
#[derive(Clone, Debug)]
pub struct DeviceInfo {
    /// The device name, e.g. `llvmpipe (LLVM 15.0.6, 256 bits)`.
    pub name: String,
    /// Discrete, integrated, virtual, CPU or other.
    pub device_type: vk::PhysicalDeviceType,
    /// PCI vendor id (0x10005 is Mesa's software vendor id).
    pub vendor_id: u32,
    /// The Vulkan version the device supports (`vk::make_api_version` encoding).
    pub api_version: u32,
    /// The raw, vendor-encoded driver version.
    pub driver_version: u32,
    /// Driver name from `VkPhysicalDeviceDriverProperties` (e.g. `llvmpipe`), when available.
    pub driver_name: Option<String>,
    /// Driver info from `VkPhysicalDeviceDriverProperties` (e.g. `Mesa 25.0.7`), when available.
    pub driver_info: Option<String>,
    /// Index of the queue family the harness submits to.
    pub queue_family_index: u32,
    /// `maxComputeWorkGroupCount`: the largest dispatch per dimension.
    pub max_compute_work_group_count: [u32; 3],
    /// All limits of the device (`VkPhysicalDeviceLimits`).
    pub limits: vk::PhysicalDeviceLimits,
}

impl DeviceInfo {
    /// The device's Vulkan version as `major.minor.patch`.
    pub fn api_version_string(&self) -> String {
        let v = self.api_version;
        format!(
            "{}.{}.{}",
            vk::api_version_major(v),
            vk::api_version_minor(v),
            vk::api_version_patch(v)
        )
    }

    /// The driver version decoded with the vendor's known scheme (NVIDIA, Intel on Windows), else
    /// the Vulkan `major.minor.patch` encoding.
    pub fn driver_version_string(&self) -> String {
        let v = self.driver_version;
        match self.vendor_id {
            0x10de => format!(
                "{}.{}.{}.{}",
                v >> 22,
                (v >> 14) & 0xff,
                (v >> 6) & 0xff,
                v & 0x3f
            ),
            0x8086 if cfg!(windows) => format!("{}.{}", v >> 14, v & 0x3fff),
            _ => format!(
                "{}.{}.{}",
                vk::api_version_major(v),
                vk::api_version_minor(v),
                vk::api_version_patch(v)
            ),
        }
    }

    /// True for a CPU implementation such as lavapipe.
    pub fn is_cpu(&self) -> bool {
        self.device_type == vk::PhysicalDeviceType::CPU
    }
}

impl fmt::Display for DeviceInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ({:?}, Vulkan {}, driver {}",
            self.name,
            self.device_type,
            self.api_version_string(),
            self.driver_version_string()
        )?;
        match (&self.driver_name, &self.driver_info) {
            (Some(name), Some(info)) => write!(f, ", {name}: {info})"),
            (Some(name), None) => write!(f, ", {name})"),
            (None, Some(info)) => write!(f, ", {info})"),
            (None, None) => write!(f, ")"),
        }
    }
}

/// How [`Gpu::with_options`] picks and sets up the device.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GpuOptions {
    /// A case-insensitive substring of the device name; `None` falls back to
    /// `DXBC2SPV_VK_DEVICE`, then to the preference order of the module documentation.
    pub selector: Option<String>,
    /// Opt-in features to enable besides the default ones (see [`crate::features`]), e.g.
    /// `robustBufferAccess`. Each must be an opt-in feature the device supports.
    pub opt_in_features: Vec<String>,
}

/// A Vulkan device ready to run test shaders.
///
/// Owns the instance, the logical device, one queue and the memory allocator; everything is
/// destroyed in [`Drop`] (allocator first, then device, then instance). Objects created from it
/// ([`crate::Buffer`]) borrow it, so they cannot outlive it.
pub struct Gpu {
    // Field order does not matter for destruction: `Drop` below does it explicitly.
    allocator: ManuallyDrop<Mutex<Allocator>>,
    queue: Mutex<vk::Queue>,
    device: ash::Device,
    physical_device: vk::PhysicalDevice,
    instance: ash::Instance,
    info: DeviceInfo,
    features: DeviceFeatures,
    enabled: BTreeSet<&'static str>,
    // Keeps libvulkan loaded for as long as the instance and device live.
    _entry: ash::Entry,
}

/// What [`Gpu::open_device`] creates.
struct Opened {
    chosen: Candidate,
    features: DeviceFeatures,
    enabled: BTreeSet<&'static str>,
    device: ash::Device,
    queue: vk::Queue,
    allocator: Allocator,
}

/// One candidate physical device with the facts needed to choose among them.
struct Candidate {
    handle: vk::PhysicalDevice,
    info: DeviceInfo,
}

impl Gpu {
    /// Creates a device: `selector` (or `DXBC2SPV_VK_DEVICE` when `selector` is `None`) picks a
    /// device whose name contains it (case-insensitive); without either, a GPU is preferred and
    /// lavapipe is the fallback. Fails when libvulkan, a Vulkan 1.1 device, or a matching device
    /// is missing.
    pub fn new(selector: Option<&str>) -> Result<Gpu> {
        Gpu::with_options(&GpuOptions {
            selector: selector.map(str::to_owned),
            opt_in_features: Vec::new(),
        })
    }

    /// Like [`Gpu::new`], with opt-in features enabled as well (see [`GpuOptions`]).
    pub fn with_options(options: &GpuOptions) -> Result<Gpu> {
        let env_selector = std::env::var(DEVICE_ENV)
            .ok()
            .filter(|s| !s.trim().is_empty());
        let selector = options.selector.clone().or(env_selector);
        for name in &options.opt_in_features {
            if feature_kind(name) != Some(FeatureKind::OptIn) {
                bail!("{name:?} is not an opt-in device feature");
            }
        }
        let opt_in: Vec<&str> = options.opt_in_features.iter().map(String::as_str).collect();

        // SAFETY: loading the system Vulkan loader; it stays loaded for the life of `Gpu`.
        let entry = unsafe { ash::Entry::load() }.context(
            "could not load the Vulkan loader (libvulkan.so.1); run .ci/setup.sh to install it",
        )?;
        // SAFETY: plain query of the loader.
        let loader_version = unsafe { entry.try_enumerate_instance_version() }
            .context("vkEnumerateInstanceVersion failed")?
            .unwrap_or(vk::API_VERSION_1_0);
        if loader_version < vk::API_VERSION_1_1 {
            bail!(
                "the Vulkan loader supports only Vulkan {}.{}; 1.1 or newer is required",
                vk::api_version_major(loader_version),
                vk::api_version_minor(loader_version)
            );
        }

        let app_name = c"dxbc2spv-vk-tests";
        let app_info = vk::ApplicationInfo::default()
            .application_name(app_name)
            .application_version(1)
            .engine_name(app_name)
            .engine_version(1)
            .api_version(REQUESTED_API_VERSION);
        let instance_info = vk::InstanceCreateInfo::default().application_info(&app_info);
        // SAFETY: the create info and what it points to outlive the call.
        let instance = unsafe { entry.create_instance(&instance_info, None) }
            .context("vkCreateInstance failed (is a Vulkan driver installed? run .ci/setup.sh)")?;

        // From here on, destroy the instance if anything fails.
        match Self::open_device(&instance, selector.as_deref(), &opt_in) {
            Ok(opened) => Ok(Gpu {
                allocator: ManuallyDrop::new(Mutex::new(opened.allocator)),
                queue: Mutex::new(opened.queue),
                device: opened.device,
                physical_device: opened.chosen.handle,
                instance,
                info: opened.chosen.info,
                features: opened.features,
                enabled: opened.enabled,
                _entry: entry,
            }),
            Err(err) => {
                // SAFETY: no child objects of the instance are alive here, and `entry` (which
                // keeps libvulkan loaded) is still alive.
                unsafe { instance.destroy_instance(None) };
                Err(err)
            }
        }
    }

    /// Second half of [`Gpu::new`]: chooses the physical device and creates the logical device
    /// (with the features of [`crate::features`] enabled), its queue and the allocator. On
    /// error, whatever it created is destroyed again.
    fn open_device(
        instance: &ash::Instance,
        selector: Option<&str>,
        opt_in: &[&str],
    ) -> Result<Opened> {
        let chosen = Self::choose_device(instance, selector)?;
        let api_version = chosen.info.api_version;
        let features = DeviceFeatures::query(instance, chosen.handle, api_version);
        if let Some(missing) = opt_in.iter().find(|n| !features.supports(n)) {
            bail!("{} does not support {missing}", chosen.info.name);
        }
        let (mut enable, enabled) = features.to_enable(opt_in);

        let priorities = [1.0f32];
        let queue_infos = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(chosen.info.queue_family_index)
            .queue_priorities(&priorities)];
        let extensions: Vec<*const c_char> =
            enable.extensions().iter().map(|e| e.as_ptr()).collect();
        let wants_xfb = enable.xfb.transform_feedback == vk::TRUE;
        let wants_interlock = enable.wants_interlock();
        // Devices have Vulkan 1.1 or newer, so `VkPhysicalDeviceFeatures2` is core.
        let mut features2 = vk::PhysicalDeviceFeatures2::default().features(enable.v10);
        if api_version >= vk::API_VERSION_1_2 {
            features2 = features2
                .push_next(&mut enable.v11)
                .push_next(&mut enable.v12);
            if api_version >= vk::API_VERSION_1_3 {
                features2 = features2.push_next(&mut enable.v13);
            }
        }
        if wants_xfb {
            features2 = features2.push_next(&mut enable.xfb);
        }
        if enable.m5.maintenance5 == vk::TRUE {
            features2 = features2.push_next(&mut enable.m5);
        }
        if wants_interlock {
            features2 = features2.push_next(&mut enable.interlock);
        }
        let device_info = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queue_infos)
            .enabled_extension_names(&extensions)
            .push_next(&mut features2);
        // SAFETY: the physical device comes from this instance; create infos (and the feature
        // structures chained to them, core in the device's version or of an enabled extension)
        // outlive the call.
        let device = unsafe { instance.create_device(chosen.handle, &device_info, None) }
            .with_context(|| format!("vkCreateDevice failed for {}", chosen.info))?;
        // SAFETY: queue 0 of the family was requested above.
        let queue = unsafe { device.get_device_queue(chosen.info.queue_family_index, 0) };

        let allocator = Allocator::new(&AllocatorCreateDesc {
            instance: instance.clone(),
            device: device.clone(),
            physical_device: chosen.handle,
            debug_settings: AllocatorDebugSettings::default(),
            // Buffers get device addresses when the device can (root-descriptor cases).
            buffer_device_address: enabled.contains("bufferDeviceAddress"),
            allocation_sizes: AllocationSizes::new(MEMBLOCK_SIZE, MEMBLOCK_SIZE),
        });
        match allocator {
            Ok(allocator) => Ok(Opened {
                chosen,
                features,
                enabled,
                device,
                queue,
                allocator,
            }),
            Err(e) => {
                // SAFETY: nothing was created from the device yet.
                unsafe { device.destroy_device(None) };
                Err(anyhow!(e).context("creating the gpu-allocator Allocator failed"))
            }
        }
    }

    /// Lists the usable devices and picks one (see the module documentation for the rules).
    fn choose_device(instance: &ash::Instance, selector: Option<&str>) -> Result<Candidate> {
        // SAFETY: plain query on a live instance.
        let handles = unsafe { instance.enumerate_physical_devices() }
            .context("vkEnumeratePhysicalDevices failed")?;
        if handles.is_empty() {
            bail!("no Vulkan physical devices found (run .ci/setup.sh to install lavapipe)");
        }

        let mut usable = Vec::new();
        let mut rejected = Vec::new();
        for handle in handles {
            match describe_device(instance, handle) {
                Ok(info) => usable.push(Candidate { handle, info }),
                Err(why) => rejected.push(why.to_string()),
            }
        }
        let listing = || {
            let mut s: Vec<String> = usable.iter().map(|c| c.info.to_string()).collect();
            s.extend(rejected.iter().map(|r| format!("unusable: {r}")));
            s.join("; ")
        };

        if let Some(sel) = selector {
            let needle = sel.to_lowercase();
            let pos = usable
                .iter()
                .position(|c| c.info.name.to_lowercase().contains(&needle));
            return match pos {
                Some(i) => Ok(usable.swap_remove(i)),
                None => Err(anyhow!(
                    "no usable Vulkan device name contains {sel:?} (from the selector or \
                     {DEVICE_ENV}); devices: {}",
                    listing()
                )),
            };
        }

        let rank = |t: vk::PhysicalDeviceType| match t {
            vk::PhysicalDeviceType::DISCRETE_GPU => 0,
            vk::PhysicalDeviceType::INTEGRATED_GPU => 1,
            vk::PhysicalDeviceType::VIRTUAL_GPU => 2,
            vk::PhysicalDeviceType::CPU => 3,
            _ => 4,
        };
        let best = usable
            .iter()
            .enumerate()
            .min_by_key(|(i, c)| (rank(c.info.device_type), *i))
            .map(|(i, _)| i);
        match best {
            Some(i) => Ok(usable.swap_remove(i)),
            None => Err(anyhow!("no usable Vulkan device; devices: {}", listing())),
        }
    }

    /// Facts about the chosen device.
    pub fn info(&self) -> &DeviceInfo {
        &self.info
    }

    /// The features and properties of [`crate::features`] the device supports.
    pub fn features(&self) -> &DeviceFeatures {
        &self.features
    }

    /// The features enabled on this logical device.
    pub fn enabled_features(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.enabled.iter().copied()
    }

    /// The logical device, for creating Vulkan objects.
    pub fn device(&self) -> &ash::Device {
        &self.device
    }

    /// The Vulkan instance.
    pub fn instance(&self) -> &ash::Instance {
        &self.instance
    }

    /// The physical device in use.
    pub fn physical_device(&self) -> vk::PhysicalDevice {
        self.physical_device
    }

    /// Index of the queue family that [`Gpu::queue`] belongs to.
    pub fn queue_family_index(&self) -> u32 {
        self.info.queue_family_index
    }

    /// The queue, locked: Vulkan requires external synchronization for submissions.
    pub fn queue(&self) -> Result<MutexGuard<'_, vk::Queue>> {
        self.queue
            .lock()
            .map_err(|_| anyhow!("the queue mutex is poisoned"))
    }

    /// The memory allocator, locked.
    pub fn allocator(&self) -> Result<MutexGuard<'_, Allocator>> {
        self.allocator
            .lock()
            .map_err(|_| anyhow!("the allocator mutex is poisoned"))
    }

    /// Gives `allocation` (the memory of a destroyed `what`: "buffer", "image") back to the
    /// allocator; for use in `Drop`, so failures are reported on stderr (and the memory leaked).
    pub(crate) fn free(&self, allocation: Allocation, what: &str) {
        match self.allocator() {
            Ok(mut allocator) => {
                if let Err(e) = allocator.free(allocation) {
                    eprintln!("vk-tests: freeing {what} memory failed: {e}");
                }
            }
            Err(e) => eprintln!("vk-tests: leaking {what} memory: {e}"),
        }
    }
}

impl Drop for Gpu {
    fn drop(&mut self) {
        // SAFETY: every object made from the device borrows `self`, so all are gone by now; the
        // allocator frees its memory blocks with the device, so it goes before the device, and the
        // device goes before the instance.
        unsafe {
            let _ = self.device.device_wait_idle();
            ManuallyDrop::drop(&mut self.allocator);
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}

/// Reads a device's properties and picks its queue family; errors say why a device is unusable.
fn describe_device(instance: &ash::Instance, handle: vk::PhysicalDevice) -> Result<DeviceInfo> {
    // SAFETY: plain queries on a physical device of this instance.
    let props = unsafe { instance.get_physical_device_properties(handle) };
    let name = c_chars_to_string(&props.device_name);
    if props.api_version < vk::API_VERSION_1_1 {
        bail!("{name}: supports only Vulkan 1.0");
    }

    // SAFETY: as above.
    let families = unsafe { instance.get_physical_device_queue_family_properties(handle) };
    let has =
        |f: &vk::QueueFamilyProperties, flags| f.queue_count > 0 && f.queue_flags.contains(flags);
    // Prefer a graphics+compute family (later graphics runners use the same queue).
    let family = families
        .iter()
        .position(|f| has(f, vk::QueueFlags::GRAPHICS | vk::QueueFlags::COMPUTE))
        .or_else(|| {
            families
                .iter()
                .position(|f| has(f, vk::QueueFlags::COMPUTE))
        })
        .ok_or_else(|| anyhow!("{name}: no compute-capable queue family"))?;

    let (driver_name, driver_info) = driver_properties(instance, handle, props.api_version)?;
    Ok(DeviceInfo {
        name,
        device_type: props.device_type,
        vendor_id: props.vendor_id,
        api_version: props.api_version,
        driver_version: props.driver_version,
        driver_name,
        driver_info,
        queue_family_index: u32::try_from(family).context("queue family index overflows u32")?,
        max_compute_work_group_count: props.limits.max_compute_work_group_count,
        limits: props.limits,
    })
}

/// Driver name and info strings, when the device has Vulkan 1.2 or `VK_KHR_driver_properties`.
fn driver_properties(
    instance: &ash::Instance,
    handle: vk::PhysicalDevice,
    api_version: u32,
) -> Result<(Option<String>, Option<String>)> {
    let supported = api_version >= vk::API_VERSION_1_2 || {
        // SAFETY: plain query.
        let exts = unsafe { instance.enumerate_device_extension_properties(handle) }
            .context("vkEnumerateDeviceExtensionProperties failed")?;
        exts.iter()
            .any(|e| e.extension_name_as_c_str().ok() == Some(ash::khr::driver_properties::NAME))
    };
    if !supported {
        return Ok((None, None));
    }
    let mut driver = vk::PhysicalDeviceDriverProperties::default();
    let mut props2 = vk::PhysicalDeviceProperties2::default().push_next(&mut driver);
    // SAFETY: the chained struct is supported (checked above) and outlives the call.
    unsafe { instance.get_physical_device_properties2(handle, &mut props2) };
    let name = c_chars_to_string(&driver.driver_name);
    let info = c_chars_to_string(&driver.driver_info);
    let some = |s: String| if s.is_empty() { None } else { Some(s) };
    Ok((some(name), some(info)))
}

/// Converts a fixed-size, NUL-terminated Vulkan string to a `String` (lossy; stops at the end
/// of the array when there is no NUL).
fn c_chars_to_string(chars: &[c_char]) -> String {
    // `c_char` is i8 or u8 depending on the target; reinterpret as bytes.
    let bytes: Vec<u8> = chars.iter().map(|&c| c as u8).collect();
    match CStr::from_bytes_until_nul(&bytes) {
        Ok(s) => s.to_string_lossy().into_owned(),
        Err(_) => String::from_utf8_lossy(&bytes).into_owned(),
    }
}
