# Finding Bullet for the Bullet adapter (broadphase::bullet,
# bullet/include/broadphase/bullet/): included by the top CMakeLists.txt and, when a
# user asks for the component (find_package(broadphase COMPONENTS bullet)), by
# the installed package configuration. Bullet's own BulletConfig.cmake gives
# paths relative to a prefix it does not name (Debian's 3.24), so the headers
# and the two libraries the adapter needs are found directly, as
# bench/peers/ finds them (the same cache entries).

# broadphase_find_bullet(RESULT): RESULT is ON when Bullet's headers and its
# BulletCollision and LinearMath libraries are found (Debian: libbullet-dev);
# then the imported target broadphase_Bullet::collision carries them.
function(broadphase_find_bullet result)
  find_path(BROADPHASE_BULLET_INCLUDE_DIR btBulletCollisionCommon.h PATH_SUFFIXES bullet)
  find_library(BROADPHASE_BULLET_COLLISION_LIBRARY BulletCollision)
  find_library(BROADPHASE_BULLET_LINEARMATH_LIBRARY LinearMath)
  if(NOT BROADPHASE_BULLET_INCLUDE_DIR OR NOT BROADPHASE_BULLET_COLLISION_LIBRARY OR NOT BROADPHASE_BULLET_LINEARMATH_LIBRARY)
    set(${result} OFF PARENT_SCOPE)
    return()
  endif()
  if(NOT TARGET broadphase_Bullet::collision)
    add_library(broadphase_Bullet::collision INTERFACE IMPORTED)
    set_target_properties(broadphase_Bullet::collision PROPERTIES
      INTERFACE_INCLUDE_DIRECTORIES "${BROADPHASE_BULLET_INCLUDE_DIR}"
      INTERFACE_LINK_LIBRARIES "${BROADPHASE_BULLET_COLLISION_LIBRARY};${BROADPHASE_BULLET_LINEARMATH_LIBRARY}")
  endif()
  set(${result} ON PARENT_SCOPE)
endfunction()
