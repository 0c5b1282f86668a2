/*
 * Test-only, minimal declarations of the Jailhouse configuration layout that the rendered
 * root-cell and RT-cell sources (hypervisor-cells/jailhouse/) use, so that a unit test can
 * compile them (-fsyntax-only) where no Jailhouse tree exists. Written for RTDroid from the
 * layout Jailhouse publishes in include/jailhouse/cell-config.h and include/jailhouse/console.h
 * (JAILHOUSE_CONFIG_REVISION 14); only what the renderer emits is declared, so a render that
 * uses anything else fails here too. The sizes asserted at the end are the packed sizes that
 * layout gives; Jailhouse's own tree is what a user builds the .cell files with.
 */
#ifndef RTDROID_TEST_JAILHOUSE_CELL_CONFIG_H
#define RTDROID_TEST_JAILHOUSE_CELL_CONFIG_H

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define JAILHOUSE_ARM64 2
#define JAILHOUSE_CONFIG_REVISION 14
#define JAILHOUSE_CELL_NAME_MAXLEN 31
#define JAILHOUSE_SYSTEM_SIGNATURE "JHSYS"
#define JAILHOUSE_CELL_DESC_SIGNATURE "JHCLL"

#define JAILHOUSE_SYS_VIRTUAL_DEBUG_CONSOLE 0x0001
#define JAILHOUSE_CELL_PASSIVE_COMMREG 0x00000001
#define JAILHOUSE_CELL_VIRTUAL_CONSOLE_PERMITTED 0x40000000

#define JAILHOUSE_CON_TYPE_8250 0x0002
#define JAILHOUSE_CON_TYPE_PL011 0x0003
#define JAILHOUSE_CON_ACCESS_MMIO 0x0001
#define JAILHOUSE_CON_REGDIST_4 0x0002

#define JAILHOUSE_MEM_READ 0x0001
#define JAILHOUSE_MEM_WRITE 0x0002
#define JAILHOUSE_MEM_EXECUTE 0x0004
#define JAILHOUSE_MEM_DMA 0x0008
#define JAILHOUSE_MEM_IO 0x0010
#define JAILHOUSE_MEM_COMM_REGION 0x0020
#define JAILHOUSE_MEM_LOADABLE 0x0040
#define JAILHOUSE_MEM_ROOTSHARED 0x0080
#define JAILHOUSE_MEM_IO_8 (1 << 16)
#define JAILHOUSE_MEM_IO_32 (4 << 16)

#define JAILHOUSE_PCI_TYPE_IVSHMEM 0x03
#define JAILHOUSE_SHMEM_PROTO_CUSTOM 0x4000
#define JAILHOUSE_IVSHMEM_BAR_MASK_INTX { 0xfffff000, 0, 0, 0, 0, 0 }

struct jailhouse_console {
	__u64 address;
	__u32 size;
	__u16 type;
	__u16 flags;
	__u32 divider;
	__u32 gate_nr;
	__u64 clock_reg;
} __attribute__((packed));

struct jailhouse_cell_desc {
	char signature[5];
	__u8 architecture;
	__u16 revision;
	char name[JAILHOUSE_CELL_NAME_MAXLEN + 1];
	__u32 id;
	__u32 flags;
	__u32 cpu_set_size;
	__u32 num_memory_regions;
	__u32 num_cache_regions;
	__u32 num_irqchips;
	__u32 num_pio_regions;
	__u32 num_pci_devices;
	__u32 num_pci_caps;
	__u32 num_stream_ids;
	__u32 vpci_irq_base;
	__u64 cpu_reset_address;
	__u64 msg_reply_timeout;
	struct jailhouse_console console;
} __attribute__((packed));

struct jailhouse_memory {
	__u64 phys_start;
	__u64 virt_start;
	__u64 size;
	__u64 flags;
} __attribute__((packed));

struct jailhouse_irqchip {
	__u64 address;
	__u32 id;
	__u32 pin_base;
	__u32 pin_bitmap[4];
} __attribute__((packed));

struct jailhouse_pci_device {
	__u8 type;
	__u8 iommu;
	__u16 domain;
	__u16 bdf;
	__u32 bar_mask[6];
	__u16 caps_start;
	__u16 num_caps;
	__u8 num_msi_vectors;
	__u8 msi_64bits:1;
	__u8 msi_maskable:1;
	__u16 num_msix_vectors;
	__u16 msix_region_size;
	__u64 msix_address;
	__u32 shmem_regions_start;
	__u8 shmem_dev_id;
	__u8 shmem_peers;
	__u16 shmem_protocol;
} __attribute__((packed));

/* Only the size of an IOMMU unit matters to the system layout: 28 bytes, 8 of them. */
struct jailhouse_iommu {
	__u8 opaque[28];
} __attribute__((packed));

struct jailhouse_system {
	char signature[5];
	__u8 architecture;
	__u16 revision;
	__u32 flags;
	struct jailhouse_memory hypervisor_memory;
	struct jailhouse_console debug_console;
	struct {
		__u64 pci_mmconfig_base;
		__u8 pci_mmconfig_end_bus;
		__u8 pci_is_virtual;
		__u16 pci_domain;
		struct jailhouse_iommu iommu_units[8];
		union {
			struct {
				__u8 x86_opaque[16];
			} __attribute__((packed)) x86;
			struct {
				u8 maintenance_irq;
				u8 gic_version;
				u8 padding[2];
				u64 gicd_base;
				u64 gicc_base;
				u64 gich_base;
				u64 gicv_base;
				u64 gicr_base;
			} __attribute__((packed)) arm;
		} __attribute__((packed));
	} __attribute__((packed)) platform_info;
	struct jailhouse_cell_desc root_cell;
} __attribute__((packed));

_Static_assert(sizeof(struct jailhouse_console) == 32, "console layout");
_Static_assert(sizeof(struct jailhouse_cell_desc) == 132, "cell descriptor layout");
_Static_assert(sizeof(struct jailhouse_memory) == 32, "memory region layout");
_Static_assert(sizeof(struct jailhouse_irqchip) == 32, "irqchip layout");
_Static_assert(sizeof(struct jailhouse_pci_device) == 56, "PCI device layout");
_Static_assert(sizeof(struct jailhouse_system) == 488, "system layout");

#endif
