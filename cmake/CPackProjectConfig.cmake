# CPackProjectConfig.cmake - read by cpack (CPACK_PROJECT_CONFIG_FILE) when
# it makes a package. A binary built with FCL_NATIVE (-march=native) may
# stop with an illegal instruction on another CPU, which the relocatable
# archive is for; the configure step only says so in a status line, easy
# to miss, so cpack says it again (not for a source package, which only
# CPackSourceConfig.cmake's CPACK_SOURCE_INSTALLED_DIRECTORIES marks).
if(CPACK_FCL_NATIVE AND NOT CPACK_SOURCE_INSTALLED_DIRECTORIES)
  message(WARNING "fluidcl was configured with FCL_NATIVE=ON (-march=native): this package runs only on "
                  "CPUs like the build machine's. Reconfigure with -DFCL_NATIVE=OFF for a portable one "
                  "(README: Relocatable build).")
endif()
