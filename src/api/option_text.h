// How option(key, bool|double) values are spelled: as Spark passes them on (Scala's toString),
// "true"/"false" and the number's shortest text ("0.5", "10.0", "1.0E20").
#pragma once

#include <string>

namespace sluice::api {

std::string OptionText(bool value);
std::string OptionText(double value);

}  // namespace sluice::api
