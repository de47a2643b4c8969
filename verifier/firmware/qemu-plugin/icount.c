/* Counts the guest instructions QEMU executes (exactly: one inline add per instruction) and
 * the count between two marker addresses:
 *
 *   qemu-system-arm ... -plugin ./icount.so,begin=0x10000abc,end=0x10000ac4 -d plugin
 *
 * Prints "icount: between markers N" when the end marker's first instruction is reached
 * (counted from the begin marker's first instruction), and "icount: total N" at exit.
 * begin/end are function addresses (the Thumb bit is ignored). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qemu-plugin-api.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

static uint64_t insns;      /* every instruction executed (single vCPU) */
static uint64_t at_begin;   /* `insns` when the begin marker ran */
static uint64_t begin_addr = UINT64_MAX, end_addr = UINT64_MAX;
static int begun;

static void on_begin(unsigned int vcpu, void *udata)
{
    (void)vcpu;
    (void)udata;
    at_begin = insns;
    begun = 1;
}

static void on_end(unsigned int vcpu, void *udata)
{
    char line[96];
    (void)vcpu;
    (void)udata;
    if (!begun)
        return;
    snprintf(line, sizeof line, "icount: between markers %" PRIu64 "\n", insns - at_begin);
    qemu_plugin_outs(line);
    begun = 0;
}

static void on_tb(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    size_t n = qemu_plugin_tb_n_insns(tb);
    uint64_t pc = qemu_plugin_tb_vaddr(tb);
    (void)id;
    /* The markers' callbacks first, so they read the count before this block's adds. */
    if (pc == begin_addr)
        qemu_plugin_register_vcpu_tb_exec_cb(tb, on_begin, QEMU_PLUGIN_CB_NO_REGS, NULL);
    if (pc == end_addr)
        qemu_plugin_register_vcpu_tb_exec_cb(tb, on_end, QEMU_PLUGIN_CB_NO_REGS, NULL);
    for (size_t i = 0; i < n; i++)
        qemu_plugin_register_vcpu_insn_exec_inline(qemu_plugin_tb_get_insn(tb, i),
                                                   QEMU_PLUGIN_INLINE_ADD_U64, &insns, 1);
}

static void on_atexit(qemu_plugin_id_t id, void *udata)
{
    char line[64];
    (void)id;
    (void)udata;
    snprintf(line, sizeof line, "icount: total %" PRIu64 "\n", insns);
    qemu_plugin_outs(line);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
                                           char **argv)
{
    (void)info;
    for (int i = 0; i < argc; i++) {
        if (strncmp(argv[i], "begin=", 6) == 0)
            begin_addr = strtoull(argv[i] + 6, NULL, 0) & ~(uint64_t)1;
        else if (strncmp(argv[i], "end=", 4) == 0)
            end_addr = strtoull(argv[i] + 4, NULL, 0) & ~(uint64_t)1;
        else {
            fprintf(stderr, "icount: unknown argument %s\n", argv[i]);
            return -1;
        }
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_tb);
    qemu_plugin_register_atexit_cb(id, on_atexit, NULL);
    return 0;
}
