// raycar-script-reference: prints the vehicle script reference (the key table) as Markdown,
// for the README.
#include <raycar/io/VehicleScript.h>

#include <cstdio>

int main() {
  std::fputs(raycar::scriptReferenceMarkdown().c_str(), stdout);
  return 0;
}
