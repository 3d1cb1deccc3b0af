#!/usr/bin/perl
# bench_cpu_sample in one process (bench/lib.sh): every second, until STOP exists, appends
# "<epoch ms> <name> <pid> <ticks>" for each JVM given as NAME:PID (bench_processes), each
# PostgreSQL process (postgres:<database after PREFIX>, or postgres:server) and the machine
# (machine 0 <busy ticks>). MODE "once" takes one sample and ends; "loop" samples until STOP.
#   cpu-sampler.pl OUT STOP PREFIX MODE NAME:PID...
use strict;
use warnings;
use Time::HiRes qw(time sleep);

my ($out, $stop, $prefix, $mode, @jvms) = @ARGV;

sub slurp {
  my ($path) = @_;
  open(my $fh, '<', $path) or return undef;
  local $/;
  my $text = <$fh>;
  close($fh);
  return $text;
}

# utime + stime of /proc/PID/stat (the fields after the command's closing parenthesis).
sub ticks {
  my ($pid) = @_;
  my $stat = slurp("/proc/$pid/stat") // return;
  $stat =~ s/^.*\) //s;
  my @f = split(' ', $stat);
  return $f[11] + $f[12];
}

sub sample {
  my $now = int(time() * 1000);
  my @lines;
  for my $jvm (@jvms) {
    my ($name, $pid) = split(/:/, $jvm);
    my $ticks = ticks($pid);
    push @lines, "$now $name $pid $ticks" if defined $ticks;
  }
  opendir(my $proc, '/proc') or return;
  for my $pid (grep { /^\d+$/ } readdir($proc)) {
    my $comm = slurp("/proc/$pid/comm") // next;
    next unless $comm eq "postgres\n";
    my $ticks = ticks($pid) // next;
    my $title = slurp("/proc/$pid/cmdline") // next;
    my $db = 'server';
    for my $word (split(/[\s\0]+/, $title)) {
      if (index($word, $prefix) == 0) { $db = substr($word, length($prefix)); last; }
    }
    push @lines, "$now postgres:$db $pid $ticks";
  }
  closedir($proc);
  my $stat = slurp('/proc/stat') // '';
  if ($stat =~ /^cpu\s+(\d+)\s+(\d+)\s+(\d+)\s+\d+\s+\d+\s+(\d+)\s+(\d+)\s+(\d+)/m) {
    push @lines, "$now machine 0 " . ($1 + $2 + $3 + $4 + $5 + $6);
  }
  open(my $fh, '>>', $out) or return;
  print $fh map { "$_\n" } @lines;
  close($fh);
}

if ($mode eq 'once') {
  sample();
  exit 0;
}
until (-e $stop) {
  sample();
  sleep 1;
}
