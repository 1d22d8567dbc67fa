// The cycle collector: garbage cycles of traced objects are freed, anything
// held from outside (and what it reaches) survives, each destroy runs once.
#include <doctest/doctest.h>

#include "wo_runtime.h"

namespace {

// A traced "class" with two heap fields, laid out as codegen lays it out.
struct Node {
  WoHeader h;
  void* a;
  void* b;
};

int destroyed = 0;

void node_destroy(void* self) {
  wo_gc_forget(self);
  ++destroyed;
  auto* n = static_cast<Node*>(self);
  wo_release(n->a);
  wo_release(n->b);
}

void node_trace(void* self, WoVisit visit, void* ctx) {
  auto* n = static_cast<Node*>(self);
  visit(&n->a, ctx);
  visit(&n->b, ctx);
}

Node* make() {
  wo_gc_register(node_destroy, node_trace);
  return static_cast<Node*>(wo_alloc_traced(sizeof(Node), node_destroy));
}

}  // namespace

TEST_CASE("gc: a two-node cycle dropped by its last outside owner is freed") {
  destroyed = 0;
  int64_t before = wo_gc_tracked();
  Node* x = make();
  Node* y = make();
  x->a = y;             // x -> y (the reference made by make() is handed over)
  y->a = x;             // y -> x
  wo_retain(x);         // y holds x; our local still holds x too (rc 2)
  wo_release(x);        // drop the local: x (rc 1) and y (rc 1) only hold each other
  CHECK(wo_gc_tracked() == before + 2);
  CHECK(destroyed == 0);  // counts alone cannot free them
  wo_gc_collect();
  CHECK(destroyed == 2);
  CHECK(wo_gc_tracked() == before);
}

TEST_CASE("gc: objects held from outside survive, with what they reach") {
  destroyed = 0;
  Node* root = make();
  Node* child = make();
  root->a = child;
  child->a = root;
  wo_retain(root);            // child -> root
  WoText* t = wo_text_new("kept", 4);
  child->b = t;               // a leaf inside the cycle
  wo_gc_collect();            // root is still held by this test
  CHECK(destroyed == 0);
  CHECK(child->b == t);
  wo_release(root);           // now the cycle is garbage
  wo_gc_collect();
  CHECK(destroyed == 2);
}

TEST_CASE("gc: a self-reference through a list is found") {
  destroyed = 0;
  Node* n = make();
  WoList* xs = wo_list_new(WO_ELEM_HEAP, 1);
  wo_retain(n);
  wo_list_push(xs, reinterpret_cast<uint64_t>(n));  // the list holds n
  n->a = xs;                                         // n holds the list
  wo_release(n);                                     // only the cycle n -> xs -> n remains
  wo_gc_collect();
  CHECK(destroyed == 1);
}
