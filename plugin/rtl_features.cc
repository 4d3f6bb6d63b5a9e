// Loop features at the RTL unroller.
#include "rtl_features.h"

namespace looprace {

namespace {

// Every feature by its key, as verify records name them.
struct Field {
  const char* key;
  long long RtlFeatures::*member;
};

const Field kFields[] = {
    {"insns", &RtlFeatures::insns},         {"loads", &RtlFeatures::loads},
    {"stores", &RtlFeatures::stores},       {"fp", &RtlFeatures::fp},
    {"vector", &RtlFeatures::vector},       {"divides", &RtlFeatures::divides},
    {"branches", &RtlFeatures::branches},   {"calls", &RtlFeatures::calls},
    {"blocks", &RtlFeatures::blocks},       {"exits", &RtlFeatures::exits},
    {"depth", &RtlFeatures::depth},         {"niter", &RtlFeatures::niter},
    {"est_niter", &RtlFeatures::est_niter}, {"max_niter", &RtlFeatures::max_niter},
};

// True when x, or anything inside it, is an rtx of `code`.
bool contains_code(const_rtx x, rtx_code code) {
  subrtx_iterator::array_type array;
  FOR_EACH_SUBRTX(iter, array, x, NONCONST) {
    if (GET_CODE(*iter) == code) return true;
  }
  return false;
}

bool divides(const_rtx x) {
  for (rtx_code code : {DIV, UDIV, MOD, UMOD}) {
    if (contains_code(x, code)) return true;
  }
  return false;
}

// Counts the body's instructions by kind into f.
void count_body(class loop* loop, RtlFeatures& f) {
  basic_block* body = get_loop_body(loop);
  for (unsigned i = 0; i < loop->num_nodes; ++i) {
    rtx_insn* insn;
    FOR_BB_INSNS(body[i], insn) {
      if (!NONDEBUG_INSN_P(insn)) continue;
      ++f.insns;
      if (CALL_P(insn)) ++f.calls;
      if (JUMP_P(insn)) ++f.branches;
      const_rtx set = single_set(insn);
      if (!set) continue;
      const machine_mode mode = GET_MODE(SET_DEST(set));
      if (MEM_P(SET_DEST(set))) ++f.stores;
      if (contains_code(SET_SRC(set), MEM)) ++f.loads;
      if (FLOAT_MODE_P(mode)) ++f.fp;
      if (VECTOR_MODE_P(mode)) ++f.vector;
      if (divides(SET_SRC(set))) ++f.divides;
    }
  }
  free(body);
}

// The function whose inlined body holds the loop's header (assembler name), from the scope of
// the header's first located instruction; "" when the loop was not inlined.
std::string inlined_from(class loop* loop) {
  rtx_insn* insn;
  FOR_BB_INSNS(loop->header, insn) {
    if (!NONDEBUG_INSN_P(insn) || INSN_LOCATION(insn) == UNKNOWN_LOCATION) continue;
    for (tree block = LOCATION_BLOCK(INSN_LOCATION(insn)); block && TREE_CODE(block) == BLOCK;
         block = BLOCK_SUPERCONTEXT(block)) {
      if (!inlined_function_outer_scope_p(block)) continue;
      tree origin = block_ultimate_origin(block);
      if (origin && TREE_CODE(origin) == FUNCTION_DECL)
        return IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(origin));
      return "";
    }
    return "";
  }
  return "";
}

}  // namespace

RtlFeatures measure_rtl_loop(class loop* loop, const class niter_desc* desc) {
  RtlFeatures f;
  count_body(loop, f);
  f.blocks = loop->num_nodes;
  f.exits = get_loop_exit_edges(loop).length();
  f.depth = loop_depth(loop);
  if (desc && desc->simple_p && desc->const_iter) f.niter = static_cast<long long>(desc->niter);
  f.est_niter = get_estimated_loop_iterations_int(loop);
  f.max_niter = get_max_loop_iterations_int(loop);
  return f;
}

RtlLoop describe_rtl_loop(class loop* loop) {
  // get_loop_location computes and caches the loop's iv description, restricting dataflow to
  // the loop: drop what it cached (the caller restores dataflow), so the unroller starts from
  // the state it would see without us (otherwise later passes work on stale dataflow).
  bool had_description = simple_loop_desc(loop) != nullptr;
  expanded_location where = expand_location(get_loop_location(loop).get_location_t());
  RtlLoop described{where.file ? where.file : "", where.line, where.column, inlined_from(loop),
                    measure_rtl_loop(loop, simple_loop_desc(loop))};
  if (!had_description) free_simple_loop_desc(loop);
  return described;
}

nlohmann::ordered_json rtl_json(const RtlFeatures& features) {
  nlohmann::ordered_json json = nlohmann::ordered_json::object();
  for (const Field& field : kFields) json[field.key] = features.*field.member;
  return json;
}

}  // namespace looprace
