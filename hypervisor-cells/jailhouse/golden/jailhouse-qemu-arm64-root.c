/*
 * RTDroid board jailhouse-qemu-arm64: the Jailhouse system configuration and its root cell, the Android cell.
 * Target: Jailhouse's qemu-arm64 platform, arm64.
 *
 * Rendered by `rtdroid board render` from board-configs/jailhouse-qemu-arm64.yaml and
 * hypervisor-cells/jailhouse/root-cell.c.in: edit those, not this file.
 * Build: copy into a Jailhouse tree's configs/arm64/ and run make (-> jailhouse-qemu-arm64-root.cell);
 * hypervisor-cells/jailhouse/README.md has the commands.
 *
 * The root cell starts with every CPU and all RAM; `jailhouse cell create` moves the RT cell's
 * CPUs, RAM and interrupts to it. Memory regions 0-3 are the ivshmem-v2 device that carries
 * the cross-context region (state table, read/write section, two empty output sections).
 */

#include <jailhouse/types.h>
#include <jailhouse/cell-config.h>

struct {
	struct jailhouse_system header;
	__u64 cpus[1];
	struct jailhouse_memory mem_regions[7];
	struct jailhouse_irqchip irqchips[1];
	struct jailhouse_pci_device pci_devices[1];
} __attribute__((packed)) config = {
	.header = {
		.signature = JAILHOUSE_SYSTEM_SIGNATURE,
		.revision = JAILHOUSE_CONFIG_REVISION,
		.architecture = JAILHOUSE_ARM64,
		.flags = JAILHOUSE_SYS_VIRTUAL_DEBUG_CONSOLE,
		.hypervisor_memory = {
			.phys_start = 0x7fc00000,
			.size = 0x00400000,
		},
		.debug_console = {
			.address = 0x09000000,
			.size = 0x1000,
			.type = JAILHOUSE_CON_TYPE_PL011,
			.flags = JAILHOUSE_CON_ACCESS_MMIO | JAILHOUSE_CON_REGDIST_4,
		},
		.platform_info = {
			/* virtual PCI host bridge: the ivshmem device lives here */
			.pci_mmconfig_base = 0x08e00000,
			.pci_mmconfig_end_bus = 0,
			.pci_is_virtual = 1,
			.pci_domain = 1,
			.arm = {
				.gic_version = 3,
				.gicd_base = 0x08000000,
				.gicr_base = 0x080a0000,
				.maintenance_irq = 25,
			},
		},
		.root_cell = {
			.name = "jailhouse-qemu-arm64-android",
			.cpu_set_size = sizeof(config.cpus),
			.num_memory_regions = ARRAY_SIZE(config.mem_regions),
			.num_irqchips = ARRAY_SIZE(config.irqchips),
			.num_pci_devices = ARRAY_SIZE(config.pci_devices),
			/* INTx of 00:00.0 arrives at INTID vpci_irq_base + 32 */
			.vpci_irq_base = 128 - 32,
		},
	},

	.cpus = {
		0xf, /* CPUs 0, 1, 2, 3 */
	},

	.mem_regions = {
		/* ivshmem state table */ {
			.phys_start = 0x7f7ff000,
			.virt_start = 0x7f7ff000,
			.size = 0x00001000,
			.flags = JAILHOUSE_MEM_READ,
		},
		/* ivshmem read/write section: region xcc (bridge/docs/region-spec.md) */ {
			.phys_start = 0x7f800000,
			.virt_start = 0x7f800000,
			.size = 0x00400000,
			.flags = JAILHOUSE_MEM_READ | JAILHOUSE_MEM_WRITE,
		},
		/* ivshmem output section of peer 0: empty */
		{ 0 },
		/* ivshmem output section of peer 1: empty */
		{ 0 },
		/* MMIO (permissive) */ {
			.phys_start = 0x09000000,
			.virt_start = 0x09000000,
			.size = 0x37000000,
			.flags = JAILHOUSE_MEM_READ | JAILHOUSE_MEM_WRITE |
				JAILHOUSE_MEM_IO,
		},
		/* physical PCI ECAM */ {
			.phys_start = 0x4010000000,
			.virt_start = 0x4010000000,
			.size = 0x10000000,
			.flags = JAILHOUSE_MEM_READ | JAILHOUSE_MEM_WRITE |
				JAILHOUSE_MEM_IO,
		},
		/* RAM */ {
			.phys_start = 0x40000000,
			.virt_start = 0x40000000,
			.size = 0x3f7ff000,
			.flags = JAILHOUSE_MEM_READ | JAILHOUSE_MEM_WRITE |
				JAILHOUSE_MEM_EXECUTE,
		},
	},

	.irqchips = {
		/* GIC, INTIDs 32-159 */ {
			.address = 0x08000000,
			.pin_base = 32,
			.pin_bitmap = {
				0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff,
			},
		},
	},

	.pci_devices = {
		/* ivshmem-v2 0001:00:00.0: region xcc, bridge/docs/region-spec.md */ {
			.type = JAILHOUSE_PCI_TYPE_IVSHMEM,
			.domain = 1,
			.bdf = 0 << 3,
			.bar_mask = JAILHOUSE_IVSHMEM_BAR_MASK_INTX,
			.shmem_regions_start = 0,
			.shmem_dev_id = 1,
			.shmem_peers = 2,
			/* protocol 0x5843: the RTDroid cross-context region */
			.shmem_protocol = JAILHOUSE_SHMEM_PROTO_CUSTOM + 0x1843,
		},
	},
};
