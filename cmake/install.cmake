# What `cmake --install` puts where (docs/c-api.md):
#   bin/paddock                              the command
#   <libdir>/libpaddock.so.<abi>             the C API (include/paddock/paddock.h): only paddock_*
#                                            exported, the C++ inside hidden; what C programs and
#                                            the Python package (ctypes) load
#   <libdir>/libpaddock.a                    the whole library, C++ API and C API, for static links
#   <includedir>/paddock/*.h                 the headers (paddock.h is C; the rest C++20)
#   <libdir>/pkgconfig/paddock.pc            C API: cc app.c $(pkg-config --cflags --libs paddock)
#   <libdir>/cmake/paddock/                  find_package(paddock): paddock::paddock (the C API,
#                                            shared) and paddock::paddock_static (C++ and C, static)
#   <PADDOCK_PYTHON_DIR>/paddock/            the Python package (ctypes over the C API)
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# Bumped when the C ABI changes incompatibly (docs/c-api.md); also the shared library's SONAME.
set(PADDOCK_ABI_VERSION 1)
set(PADDOCK_PYTHON_DIR "${CMAKE_INSTALL_LIBDIR}/python3/dist-packages" CACHE STRING
    "Where the Python package is installed, relative to the prefix")

set(_paddock_objects)
foreach(sub ${PADDOCK_SUBSYSTEMS})
  get_target_property(_type paddock_${sub} TYPE)
  if(_type STREQUAL "STATIC_LIBRARY")
    list(APPEND _paddock_objects $<TARGET_OBJECTS:paddock_${sub}>)
  endif()
endforeach()

# libpaddock.a: every subsystem's objects in one archive.
add_library(paddock_static STATIC ${_paddock_objects})
set_target_properties(paddock_static PROPERTIES OUTPUT_NAME paddock EXPORT_NAME paddock_static)
target_include_directories(paddock_static INTERFACE $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/include>
                                                    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_link_libraries(paddock_static INTERFACE nlohmann_json::nlohmann_json Threads::Threads)

# libpaddock.so.1: the C API over the same objects. The version script exports paddock_* (version
# node PADDOCK_1) and nothing else; the archives' members are pulled in as the C API needs them.
set(PADDOCK_EXPORTS_MAP ${CMAKE_SOURCE_DIR}/src/capi/paddock.map)
add_library(paddock_shared SHARED $<TARGET_OBJECTS:paddock_capi>)
set_target_properties(paddock_shared PROPERTIES OUTPUT_NAME paddock EXPORT_NAME paddock
                      SOVERSION ${PADDOCK_ABI_VERSION} VERSION ${PADDOCK_ABI_VERSION}.0
                      LINK_DEPENDS ${PADDOCK_EXPORTS_MAP})
# What the C API's folder uses (CMakeLists.txt, PADDOCK_DEPS_capi).
list(TRANSFORM PADDOCK_DEPS_capi PREPEND paddock_ OUTPUT_VARIABLE _capi_deps)
target_link_libraries(paddock_shared PRIVATE ${_capi_deps})
target_link_options(paddock_shared PRIVATE -Wl,--version-script=${PADDOCK_EXPORTS_MAP} -Wl,--exclude-libs,ALL
                    -Wl,-z,defs -Wl,--gc-sections)
target_include_directories(paddock_shared INTERFACE $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/include>
                                                    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)

# The Debian package ships the command alone (debian/rules turns this off): libpaddock's own
# packages (a library, -dev and python3- package) are not made yet.
option(PADDOCK_INSTALL_LIBRARY "cmake --install installs libpaddock, its headers, paddock.pc, the CMake package and the Python package" ON)
if(NOT PADDOCK_INSTALL_LIBRARY)
  return()
endif()

install(TARGETS paddock_shared paddock_static EXPORT paddockTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/include/paddock DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h")
install(EXPORT paddockTargets NAMESPACE paddock:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/paddock)
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/paddockConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/paddockConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/paddock)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/paddockConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/paddockConfig.cmake ${CMAKE_BINARY_DIR}/paddockConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/paddock)

# paddock.pc, relocatable: the prefix is found from where the file lies.
file(RELATIVE_PATH PADDOCK_PC_PREFIX "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
configure_file(${CMAKE_SOURCE_DIR}/packaging/pkgconfig/paddock.pc.in ${CMAKE_BINARY_DIR}/paddock.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/paddock.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# The Python package, with where the library lies relative to it (so a relocated prefix works).
file(RELATIVE_PATH PADDOCK_PY_LIBDIR "/p/${PADDOCK_PYTHON_DIR}/paddock" "/p/${CMAKE_INSTALL_LIBDIR}")
configure_file(${CMAKE_SOURCE_DIR}/python/paddock/_installed.py.in ${CMAKE_BINARY_DIR}/python/_installed.py @ONLY)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/python/paddock DESTINATION ${PADDOCK_PYTHON_DIR}
        FILES_MATCHING PATTERN "*.py")
install(FILES ${CMAKE_BINARY_DIR}/python/_installed.py DESTINATION ${PADDOCK_PYTHON_DIR}/paddock)
