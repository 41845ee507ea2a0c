// sluice._sluice: the extension module python/sluice imports (see bindings.h).
#include "python/bindings.h"

NB_MODULE(_sluice, m) {
  using namespace sluice::python;
  m.doc() = "Native half of the sluice Python package; use sluice.sql instead.";
  BindErrors(m);
  BindArrow(m);
  BindColumn(m);
  BindFrame(m);
  BindWriter(m);
  BindQuery(m);
  BindSession(m);
  BindListener(m);
}
