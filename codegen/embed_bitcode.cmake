# Turns the runtime helpers' LLVM bitcode into a C++ source (a byte array),
# so woc carries it and needs no file at run time. Run by CMake with -DIN= -DOUT=.
file(READ ${IN} _hex HEX)
string(LENGTH "${_hex}" _len)
math(EXPR _size "${_len} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," _bytes "${_hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" _bytes "${_bytes}")
file(WRITE ${OUT}.tmp "// Generated from runtime/src/inline/helpers.cpp by codegen/embed_bitcode.cmake.\n"
     "#include <cstddef>\nnamespace wo::codegen {\nextern const unsigned char kRuntimeBitcode[];\n"
     "extern const size_t kRuntimeBitcodeSize;\nalignas(4) const unsigned char kRuntimeBitcode[] = {\n${_bytes}};\n"
     "const size_t kRuntimeBitcodeSize = ${_size};\n}\n")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUT}.tmp)
