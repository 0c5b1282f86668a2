/*
 * RTDroid board jailhouse-rpi4: the Jailhouse configuration of the RT cell (a PREEMPT_RT Linux
 * running the RT cell agent). Target: Jailhouse's rpi4 platform, arm64.
 *
 * Rendered by `rtdroid board render` from board-configs/jailhouse-rpi4.yaml and
 * hypervisor-cells/jailhouse/rt-cell.c.in: edit those, not this file.
 * Build: copy into a Jailhouse tree's configs/arm64/ and run make (-> jailhouse-rpi4-rt.cell);
 * hypervisor-cells/jailhouse/README.md has the commands.
 *
 * Memory regions 0-3 are the ivshmem-v2 device shared with the root cell (state table,
 * read/write section = the cross-context region, two empty output sections).
 */

#include <jailhouse/types.h>
#include <jailhouse/cell-config.h>

struct {
	struct jailhouse_cell_desc cell;
	__u64 cpus[1];
	struct jailhouse_memory mem_regions[8];
	struct jailhouse_irqchip irqchips[2];
	struct jailhouse_pci_device pci_devices[1];
} __attribute__((packed)) config = {
	.cell = {
		.signature = JAILHOUSE_CELL_DESC_SIGNATURE,
		.revision = JAILHOUSE_CONFIG_REVISION,
		.architecture = JAILHOUSE_ARM64,
		.name = "jailhouse-rpi4-rt",
		/* Linux does not answer Jailhouse's shutdown messages: a passive comm region */
		.flags = JAILHOUSE_CELL_PASSIVE_COMMREG |
			JAILHOUSE_CELL_VIRTUAL_CONSOLE_PERMITTED,

		.cpu_set_size = sizeof(config.cpus),
		.num_memory_regions = ARRAY_SIZE(config.mem_regions),
		.num_irqchips = ARRAY_SIZE(config.irqchips),
		.num_pci_devices = ARRAY_SIZE(config.pci_devices),

		/* INTx of 00:00.0 arrives at INTID vpci_irq_base + 32 */
		.vpci_irq_base = 185 - 32,

		.console = {
			.address = 0xfe215040,
			.type = JAILHOUSE_CON_TYPE_8250,
			.flags = JAILHOUSE_CON_ACCESS_MMIO | JAILHOUSE_CON_REGDIST_4,
		},
	},

	.cpus = {
		0xc, /* CPUs 2, 3 */
	},

	.mem_regions = {
		/* ivshmem state table */ {
			.phys_start = 0x1f7ff000,
			.virt_start = 0x1f7ff000,
			.size = 0x00001000,
			.flags = JAILHOUSE_MEM_READ | JAILHOUSE_MEM_ROOTSHARED,
		},
		/* ivshmem read/write section: region xcc (bridge/docs/region-spec.md) */ {
			.phys_start = 0x1f800000,
			.virt_start = 0x1f800000,
			.size = 0x00400000,
			.flags = JAILHOUSE_MEM_READ | JAILHOUSE_MEM_WRITE |
				JAILHOUSE_MEM_ROOTSHARED,
		},
		/* ivshmem output section of peer 0: empty */
		{ 0 },
		/* ivshmem output section of peer 1: empty */
		{ 0 },
		/* UART (8250) */ {
			.phys_start = 0xfe215040,
			.virt_start = 0xfe215040,
			.size = 0x00000040,
			.flags = JAILHOUSE_MEM_READ | JAILHOUSE_MEM_WRITE |
				JAILHOUSE_MEM_IO | JAILHOUSE_MEM_IO_8 |
				JAILHOUSE_MEM_IO_32 | JAILHOUSE_MEM_ROOTSHARED,
		},
		/* linux-loader, at cell address 0 */ {
			.phys_start = 0x1e000000,
			.virt_start = 0x00000000,
			.size = 0x00010000,
			.flags = JAILHOUSE_MEM_READ | JAILHOUSE_MEM_WRITE |
				JAILHOUSE_MEM_EXECUTE | JAILHOUSE_MEM_LOADABLE,
		},
		/* RAM */ {
			.phys_start = 0x10000000,
			.virt_start = 0x10000000,
			.size = 0x0e000000,
			.flags = JAILHOUSE_MEM_READ | JAILHOUSE_MEM_WRITE |
				JAILHOUSE_MEM_EXECUTE | JAILHOUSE_MEM_DMA |
				JAILHOUSE_MEM_LOADABLE,
		},
		/* communication region */ {
			.virt_start = 0x80000000,
			.size = 0x00001000,
			.flags = JAILHOUSE_MEM_READ | JAILHOUSE_MEM_WRITE |
				JAILHOUSE_MEM_COMM_REGION,
		},
	},

	.irqchips = {
		/* GIC, INTIDs 125 */ {
			.address = 0xff841000,
			.pin_base = 32,
			.pin_bitmap = {
				0x00000000, 0x00000000, 0x20000000, 0x00000000,
			},
		},
		/* GIC, INTIDs 185 */ {
			.address = 0xff841000,
			.pin_base = 160,
			.pin_bitmap = {
				0x02000000, 0x00000000, 0x00000000, 0x00000000,
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
			.shmem_dev_id = 0,
			.shmem_peers = 2,
			/* protocol 0x5843: the RTDroid cross-context region */
			.shmem_protocol = JAILHOUSE_SHMEM_PROTO_CUSTOM + 0x1843,
		},
	},
};
