// Loop timing: serialized TSC reads around the loop and a call into the runtime.
#include "instrument.h"

namespace looprace {

namespace {

tree rdtscp_decl;
tree rdtsc_decl;
tree lfence_decl;
tree record_decl;
EntryCpu entry_cpu_read = EntryCpu::rdtscp;

// The trees live across functions, so the garbage collector must see them.
const ggc_root_tab kRoots[] = {
    {&rdtscp_decl, 1, sizeof rdtscp_decl, &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node},
    {&rdtsc_decl, 1, sizeof rdtsc_decl, &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node},
    {&lfence_decl, 1, sizeof lfence_decl, &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node},
    {&record_decl, 1, sizeof record_decl, &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node},
    LAST_GGC_ROOT_TAB,
};

// x86 builtins are target (BUILT_IN_MD) decls, not builtin_decl_explicit ones: scan the target's
// table by name until it says error_mark_node (past its end).
tree find_target_builtin(const char* name) {
  for (unsigned code = 0;; ++code) {
    tree decl = targetm.builtin_decl(code, true);
    if (decl == error_mark_node) return NULL_TREE;
    if (decl && DECL_NAME(decl) && std::strcmp(IDENTIFIER_POINTER(DECL_NAME(decl)), name) == 0)
      return decl;
  }
}

// void __looprace_record(uint64_t, uint64_t, uint64_t, uint32_t, uint32_t), nothrow and leaf:
// no EH edges, and callers' escape analysis is not spoiled.
tree declare_record_hook() {
  tree u64 = long_long_unsigned_type_node;
  tree u32 = unsigned_type_node;
  tree type = build_function_type_list(void_type_node, u64, u64, u64, u32, u32, NULL_TREE);
  tree decl = build_fn_decl("__looprace_record", type);
  TREE_PUBLIC(decl) = 1;
  DECL_EXTERNAL(decl) = 1;
  DECL_ARTIFICIAL(decl) = 1;
  TREE_NOTHROW(decl) = 1;
  DECL_ATTRIBUTES(decl) = tree_cons(get_identifier("leaf"), NULL_TREE, DECL_ATTRIBUTES(decl));
  DECL_ATTRIBUTES(decl) = tree_cons(get_identifier("nothrow"), NULL_TREE, DECL_ATTRIBUTES(decl));
  return decl;
}

// Appends `tsc = rdtscp(&cpu_slot); lfence (); cpu = cpu_slot;` to seq; returns {tsc, cpu}.
std::pair<tree, tree> append_serialized_tsc(gimple_seq* seq, tree cpu_slot) {
  tree tsc = make_ssa_name(TREE_TYPE(TREE_TYPE(rdtscp_decl)));
  gcall* read = gimple_build_call(rdtscp_decl, 1, build_fold_addr_expr(cpu_slot));
  gimple_call_set_lhs(read, tsc);
  gimple_seq_add_stmt(seq, read);
  gimple_seq_add_stmt(seq, gimple_build_call(lfence_decl, 0));
  tree cpu = make_ssa_name(unsigned_type_node);
  gimple_seq_add_stmt(seq, gimple_build_assign(cpu, cpu_slot));
  return {tsc, cpu};
}

// Appends `cpu = rdpid; lfence (); tsc = rdtsc ();` to seq; returns {tsc, cpu}. rdpid is an
// asm statement: its builtin would need -mrdpid in every instrumented function.
std::pair<tree, tree> append_entry_tsc_rdpid(gimple_seq* seq) {
  tree id = make_ssa_name(long_long_unsigned_type_node);
  vec<tree, va_gc>* outputs = nullptr;
  const char* constraint = "=r";
  vec_safe_push(
      outputs,
      build_tree_list(build_tree_list(NULL_TREE, build_string(strlen(constraint) + 1, constraint)),
                      id));
  gasm* read_id = gimple_build_asm_vec("rdpid %0", nullptr, outputs, nullptr, nullptr);
  gimple_asm_set_volatile(read_id, true);
  SSA_NAME_DEF_STMT(id) = read_id;
  gimple_seq_add_stmt(seq, read_id);
  tree cpu = make_ssa_name(unsigned_type_node);
  gimple_seq_add_stmt(seq, gimple_build_assign(cpu, NOP_EXPR, id));
  gimple_seq_add_stmt(seq, gimple_build_call(lfence_decl, 0));
  tree tsc = make_ssa_name(TREE_TYPE(TREE_TYPE(rdtsc_decl)));
  gcall* read = gimple_build_call(rdtsc_decl, 0);
  gimple_call_set_lhs(read, tsc);
  gimple_seq_add_stmt(seq, read);
  return {tsc, cpu};
}

// The only entry edge of loop, or nullptr when there is no usable preheader.
edge entry_edge(class loop* loop) {
  edge found = nullptr;
  edge e;
  edge_iterator ei;
  FOR_EACH_EDGE(e, ei, loop->header->preds) {
    if (e->src == loop->latch || flow_bb_inside_loop_p(loop, e->src)) continue;
    if (found || (e->flags & EDGE_COMPLEX)) return nullptr;
    found = e;
  }
  return found;
}

// Instruments one loop; cpu_slot is the function's addressable slot for rdtscp's processor id.
bool instrument_loop(const LoopIdentity& identity, tree cpu_slot) {
  class loop* loop = identity.loop;
  edge entry = entry_edge(loop);
  if (!entry) {
    warning_at(identity.location, 0, "looprace: loop %s has no single entry; not instrumented",
               identity.id.c_str());
    return false;
  }
  // Collected before inserting anything: insertion splits edges.
  auto_vec<edge> exits = get_loop_exit_edges(loop);
  tree id = build_int_cst(long_long_unsigned_type_node, identity.hash);

  gimple_seq on_entry = nullptr;
  auto [t0, cpu0] = entry_cpu_read == EntryCpu::rdpid ? append_entry_tsc_rdpid(&on_entry)
                                                      : append_serialized_tsc(&on_entry, cpu_slot);
  gsi_insert_seq_on_edge_immediate(entry, on_entry);

  for (edge exit : exits) {
    if (exit->flags & (EDGE_EH | EDGE_ABNORMAL | EDGE_FAKE)) continue;
    gimple_seq on_exit = nullptr;
    auto [t1, cpu1] = append_serialized_tsc(&on_exit, cpu_slot);
    gimple_seq_add_stmt(&on_exit, gimple_build_call(record_decl, 5, id, t0, t1, cpu0, cpu1));
    gsi_insert_seq_on_edge_immediate(exit, on_exit);
  }
  return true;
}

}  // namespace

bool prepare_instrumentation(EntryCpu entry_cpu) {
  if (record_decl) return true;
  entry_cpu_read = entry_cpu;
  rdtscp_decl = find_target_builtin("__builtin_ia32_rdtscp");
  rdtsc_decl = find_target_builtin("__builtin_ia32_rdtsc");
  lfence_decl = find_target_builtin("__builtin_ia32_lfence");
  if (!rdtscp_decl || !rdtsc_decl || !lfence_decl) {
    error("looprace: cannot instrument loops: the target has no %qs, %qs or %qs builtin",
          "__builtin_ia32_rdtscp", "__builtin_ia32_rdtsc", "__builtin_ia32_lfence");
    return false;
  }
  record_decl = declare_record_hook();
  register_callback("looprace", PLUGIN_REGISTER_GGC_ROOTS, nullptr,
                    const_cast<ggc_root_tab*>(kRoots));
  return true;
}

int instrument_loops(function* fun, const std::vector<const LoopIdentity*>& loops) {
  if (loops.empty()) return 0;
  tree cpu_slot = create_tmp_var(unsigned_type_node, "looprace_cpu");
  TREE_ADDRESSABLE(cpu_slot) = 1;
  int instrumented = 0;
  for (const LoopIdentity* loop : loops) instrumented += instrument_loop(*loop, cpu_slot);
  if (instrumented) {
    keep_extern_inline_inlinable(fun);
    mark_virtual_operands_for_renaming(fun);
  }
  return instrumented;
}

void keep_extern_inline_inlinable(function* fun) {
  tree decl = fun->decl;
  if (DECL_EXTERNAL(decl) && DECL_DECLARED_INLINE_P(decl)) DECL_DISREGARD_INLINE_LIMITS(decl) = 1;
}

}  // namespace looprace
